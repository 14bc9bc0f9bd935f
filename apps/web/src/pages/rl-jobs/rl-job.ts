import { isRlJobEnded, RL_JOB_ACTIVE_STATUSES, type RlJobActiveStatus } from '@echoloop/vocabulary';
import type { Reply } from '../../api/client';
import { fmt } from '../../ui/format';

export type RlJobSummary = Reply<'get', '/v1/rl/jobs'>['items'][number];
export type RlJob = Reply<'get', '/v1/rl/jobs/{id}'>;
export type RlJobStatus = RlJob['status'];

/** A refresh's stages in order; a job is at one of them until it ends. */
export const STAGES = RL_JOB_ACTIVE_STATUSES;
const stage = (name: RlJobActiveStatus) => STAGES.indexOf(name);

export const isFinished = isRlJobEnded;

/**
 * How far a job got: its stage while active; once ended, the last stage whose result it holds (a dataset, training
 * metrics, a checkpoint, a gate, an experiment), all of them when it succeeded.
 */
export function reachedStage(job: RlJob): number {
  const active = (STAGES as readonly string[]).indexOf(job.status);
  if (active >= 0) return active;
  if (job.status === 'succeeded') return STAGES.length;
  // A rendered template stops where an adapter would be loaded: there is none.
  if (job.status === 'rendered') return stage('loading');
  if (job.experimentId) return stage('experimenting');
  if (job.gate) return stage('gating');
  if (job.checkpointId) return stage('loading');
  if (job.metrics) return stage('training');
  if (job.dataset) return stage('snapshotting');
  return stage('queued');
}

/** Rows per split of the snapshot, when the dataset is one (a skipped job keeps why instead). */
export function splitsOf(job: RlJob): { split: string; rows: number }[] {
  return ['train', 'validation', 'heldout'].flatMap((split) => {
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

/** What a template measures on its validation users, by the key its jobs report it under, in table order. */
export const VALIDATION_MEASURES = {
  valLoss: 'Loss',
  valAccuracy: 'Accuracy',
  valMargin: 'Margin',
  valReward: 'Reward',
  valRewardStd: 'Reward spread',
} as const;
export type ValidationMeasure = keyof typeof VALIDATION_MEASURES;

/** One evaluation of training on the validation users (DPO: loss, accuracy, margin; GRPO: reward). */
export interface ValidationPoint {
  step: number;
  measures: Partial<Record<ValidationMeasure, number | null>>;
  klToParent: number | null;
}

/** Validation points in step order (jobs from before validation have none). */
export function validationOf(job: RlJob): ValidationPoint[] {
  const points = job.metrics?.['validation'];
  if (!Array.isArray(points)) return [];
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return points.flatMap((point: unknown) => {
    const p = (point ?? {}) as Record<string, unknown>;
    if (typeof p['step'] !== 'number') return [];
    const measures = Object.fromEntries(
      Object.keys(VALIDATION_MEASURES).flatMap((key) => (key in p ? [[key, num(p[key])]] : [])),
    ) as ValidationPoint['measures'];
    return [{ step: p['step'], measures, klToParent: num(p['klToParent']) }];
  });
}

/** The measures any of the points reports, in table order. */
export function validationMeasuresOf(points: readonly ValidationPoint[]): ValidationMeasure[] {
  return (Object.keys(VALIDATION_MEASURES) as ValidationMeasure[]).filter((key) =>
    points.some((point) => typeof point.measures[key] === 'number'),
  );
}

/** The step training kept and why, as its manifest says (python/echoloop_train/selection.py). */
export interface SelectionView {
  generalised: boolean;
  reason: string;
  step: number | null;
  maxKl: number | null;
  stoppedBy: string | null;
}

export function selectionOf(job: RlJob): SelectionView | null {
  const selection = (job.metrics?.['selection'] ?? null) as Partial<SelectionView> | null;
  if (!selection || typeof selection.generalised !== 'boolean') return null;
  return {
    generalised: selection.generalised,
    reason: typeof selection.reason === 'string' ? selection.reason : '',
    step: typeof selection.step === 'number' ? selection.step : null,
    maxKl: typeof selection.maxKl === 'number' ? selection.maxKl : null,
    stoppedBy: typeof selection.stoppedBy === 'string' ? selection.stoppedBy : null,
  };
}

/** Where a refresh came from: its parent checkpoint, the data it read, and the base weights it was checked on. */
export interface LineageView {
  parentCheckpointId: string;
  parentJobId: string | null;
  parentAdapter: string | null;
  since: string | null;
  cutoff: string | null;
  replayed: number;
  replayRead: number;
  baseSha256: string | null;
  servedRoots: string[];
}

/** Whose turns the job's snapshot holds: the RL loop's simulated users', or people's (the default). */
export function populationOf(job: RlJob): 'people' | 'simulated' | null {
  const manifest = (job.dataset as { export?: { filters?: { population?: unknown } } } | null)?.export;
  if (!manifest) return null;
  return manifest.filters?.population === 'simulated' ? 'simulated' : 'people';
}

export function lineageOf(job: RlJob): LineageView | null {
  const dataset = job.dataset as Record<string, unknown> | null;
  const parent = dataset?.['parent'] as Record<string, unknown> | undefined;
  if (!parent || typeof parent['checkpointId'] !== 'string') return null;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const base = dataset?.['base'] as { ggufSha256?: unknown; served?: { root?: unknown }[] } | undefined;
  const replay = dataset?.['replay'] as { kept?: unknown; read?: unknown } | undefined;
  return {
    parentCheckpointId: parent['checkpointId'],
    parentJobId: str(parent['jobId']),
    parentAdapter: str(parent['adapterPath']),
    since: str(parent['cutoff']),
    cutoff: str(dataset?.['cutoff']),
    replayed: typeof replay?.kept === 'number' ? replay.kept : 0,
    replayRead: typeof replay?.read === 'number' ? replay.read : 0,
    baseSha256: str(base?.ggufSha256),
    servedRoots: (base?.served ?? []).flatMap((s) => (typeof s.root === 'string' ? [s.root] : [])),
  };
}
