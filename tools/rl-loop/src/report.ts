import type { RepeatedRefreshes } from './repeat-refreshes';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { call } from './http';
import { say } from './output';
import { fmt, gateLines } from './refresh';
import type { RlJob, Selection, ValidationPoint } from './rl-job';
import { RSS_GROUPS } from './rss-sampler';
import type { StageTiming } from './stages';

export const PROMPT = 'I feel lonely since I moved to a new city.';

/** The engine's greedy answer to the fixed prompt, from the base model or from an adapter. */
export async function greedy(modelUrl: string, model: string): Promise<string> {
  const body = await call<{ choices: { message: { content: string } }[] }>(
    modelUrl,
    'POST',
    '/chat/completions',
    {
      body: { model, messages: [{ role: 'user', content: PROMPT }], temperature: 0, max_tokens: 60 },
    },
  );
  return body.choices[0]?.message.content ?? '';
}

export interface LoopReport {
  runId: string;
  /** With --refreshes N > 1: the further refreshes and whether the engine serves exactly what is wanted after. */
  refreshes?: RepeatedRefreshes;
  startedAt: string;
  finishedAt: string;
  users: { simulated: number; swipesKept: number; ties: number };
  data: {
    pairs: number;
    train: number;
    validation: number;
    heldout: number;
    replayed: number;
    parent: string | null;
    datasetId: string;
  } | null;
  training: {
    steps: number;
    firstLoss: number | null;
    lastLoss: number | null;
    rewardAccuracy: number | null;
    validation: ValidationPoint[];
    selection: Selection | null;
  };
  gate: RlJob['gate'];
  job: { id: string; trigger: string; checkpointId: string | null; experimentId: string | null };
  routing: Record<string, number>;
  prompt: { text: string; base: string; candidate: string };
  stages: StageTiming[];
  refreshPhases: StageTiming[];
}

export function summarizeJob(job: RlJob): Pick<LoopReport, 'data' | 'training' | 'gate' | 'job'> {
  const curve = job.metrics?.curve ?? [];
  const d = job.dataset;
  return {
    data: d && {
      pairs: d.export.rows,
      train: d.train.rows,
      validation: d.validation?.rows ?? 0,
      heldout: d.heldout.rows,
      replayed: d.replay?.kept ?? 0,
      parent: d.parent?.checkpointId ?? null,
      datasetId: d.id,
    },
    training: {
      steps: curve.length,
      firstLoss: curve[0]?.loss ?? null,
      lastLoss: curve.at(-1)?.loss ?? null,
      rewardAccuracy: curve.at(-1)?.rewardAccuracy ?? null,
      validation: job.metrics?.validation ?? [],
      selection: job.metrics?.selection ?? null,
    },
    gate: job.gate,
    job: { id: job.id, trigger: job.trigger, checkpointId: job.checkpointId, experimentId: job.experimentId },
  };
}

export function stageTable(rows: StageTiming[]): string[] {
  const header = `| stage | wall s | peak RSS MiB | ${RSS_GROUPS.join(' | ')} |`;
  const line = `|---|---:|---:|${RSS_GROUPS.map(() => '---:').join('|')}|`;
  const body = rows.map(
    (r) =>
      `| ${r.stage} | ${r.wallSeconds} | ${r.peakRssMiB.total} | ${RSS_GROUPS.map((g) => r.peakRssMiB[g]).join(' | ')} |`,
  );
  return [header, line, ...body];
}

export function printReport(report: LoopReport, file: string): void {
  const { data, training: t, gate, job } = report;
  const lines = [
    `data: ${data ? `${data.pairs} new pairs + ${data.replayed} replayed (${data.train} train / ${data.validation} validation / ${data.heldout} held out), dataset ${data.datasetId}, parent ${data.parent}` : 'none'}`,
    `users: ${report.users.simulated} simulated, ${report.users.swipesKept} swipes kept, ${report.users.ties} ties`,
    `training: ${t.steps} steps, loss ${fmt(t.firstLoss)} -> ${fmt(t.lastLoss)}, reward accuracy ${fmt(t.rewardAccuracy, 2)}`,
    ...t.validation.map(
      (v) =>
        `  validation at step ${v.step}: loss ${fmt(v.valLoss)}, accuracy ${fmt(v.valAccuracy, 2)}, margin ${fmt(v.valMargin)}, KL to parent ${fmt(v.klToParent)}`,
    ),
    `selected: ${t.selection ? `${t.selection.generalised ? `step ${t.selection.step}` : 'nothing'} (${t.selection.reason}${t.selection.stoppedBy ? `; stopped by ${t.selection.stoppedBy}` : ''})` : 'none'}`,
    `gate: ${gate?.passed ? 'passed' : 'failed'}${gate?.better ? ' (significantly better)' : ''}`,
    ...(gate ? gateLines(gate).map((line) => `  ${line}`) : []),
    `job ${job.id} (${job.trigger}) -> candidate ${job.checkpointId}, experiment ${job.experimentId}`,
    `routing: ${Object.entries(report.routing)
      .map(([arm, n]) => `${arm}: ${n}`)
      .join(', ')}`,
    `prompt: "${report.prompt.text}"`,
    `  base:      ${JSON.stringify(report.prompt.base)}`,
    `  candidate: ${JSON.stringify(report.prompt.candidate)}`,
    report.prompt.candidate === report.prompt.base
      ? '  (the same greedy answer: this refresh moved no top token on this prompt)'
      : '  (the greedy answers differ)',
    '',
    ...stageTable(report.stages),
    '',
    ...stageTable(report.refreshPhases),
    '',
    `report written to ${file}`,
  ];
  for (const line of lines) say('report', line);
}

export function writeReport(report: object, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
