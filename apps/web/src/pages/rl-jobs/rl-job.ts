import type { Reply } from '../../api/client';
import { fmt } from '../../ui/format';

export type RlJobSummary = Reply<'get', '/v1/rl/jobs'>['items'][number];
export type RlJob = Reply<'get', '/v1/rl/jobs/{id}'>;
export type RlJobStatus = RlJob['status'];

/** A refresh's stages in order; a job is at one of them until it ends. */
export const STAGES = ['queued', 'snapshotting', 'training', 'loading', 'gating', 'experimenting'] as const;
const ENDED: readonly string[] = ['succeeded', 'failed', 'cancelled', 'skipped'];

export const isFinished = (status: string): boolean => ENDED.includes(status);

/**
 * How far a job got: its stage while active; once ended, the last stage whose result it holds (a dataset, training
 * metrics, a checkpoint, a gate, an experiment), all of them when it succeeded.
 */
export function reachedStage(job: RlJob): number {
  const active = (STAGES as readonly string[]).indexOf(job.status);
  if (active >= 0) return active;
  if (job.status === 'succeeded') return STAGES.length;
  if (job.experimentId) return 5;
  if (job.gate) return 4;
  if (job.checkpointId) return 3;
  if (job.metrics) return 2;
  if (job.dataset) return 1;
  return 0;
}

export interface GateView {
  passed: boolean;
  reasons: string[];
  notes: string[];
  sentient: {
    candidateEvaluationId: string;
    defaultEvaluationId: string;
    profiles: number;
    candidate: number | null;
    default: number | null;
    delta: number | null;
  } | null;
  heldout: { items: number; candidate: number | null; default: number | null; delta: number | null } | null;
}

/** The gate's result as the orchestrator writes it (documented as an open object). */
export function gateOf(job: RlJob): GateView | null {
  const gate = job.gate as Partial<GateView> | null;
  if (!gate || typeof gate.passed !== 'boolean') return null;
  return {
    passed: gate.passed,
    reasons: Array.isArray(gate.reasons) ? gate.reasons : [],
    notes: Array.isArray(gate.notes) ? gate.notes : [],
    sentient: gate.sentient ?? null,
    heldout: gate.heldout ?? null,
  };
}

/** Rows per split of the snapshot, when the dataset is one (a skipped job keeps why instead). */
export function splitsOf(job: RlJob): { split: string; rows: number }[] {
  return ['train', 'heldout'].flatMap((split) => {
    const rows = (job.dataset?.[split] as { rows?: unknown } | undefined)?.rows;
    return typeof rows === 'number' ? [{ split, rows }] : [];
  });
}

/** Training points with a loss, in step order. */
export function lossCurve(job: RlJob): { step: number; loss: number }[] {
  const curve = job.metrics?.['curve'];
  if (!Array.isArray(curve)) return [];
  return curve.flatMap((point: unknown) => {
    const { step, loss } = (point ?? {}) as { step?: unknown; loss?: unknown };
    return typeof step === 'number' && typeof loss === 'number' ? [{ step, loss }] : [];
  });
}

/** An object's plain fields (numbers, strings, booleans) as rows of a key/value table. */
export function scalarEntries(value: Record<string, unknown> | null | undefined): [string, string][] {
  return Object.entries(value ?? {}).flatMap(([key, v]): [string, string][] =>
    typeof v === 'number'
      ? [[key, fmt(v)]]
      : typeof v === 'string' || typeof v === 'boolean'
        ? [[key, String(v)]]
        : [],
  );
}
