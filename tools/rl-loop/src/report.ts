import type { ChatCompletion } from '@echoloop/openai-compat';
import { callJson } from '@echoloop/platform';
import type { ExperimentOutcome } from './experiment';
import type { Generation } from './generation';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { say } from './output';
import { fmt, gateLines } from './refresh';
import type { RlJobDetail as RlJob } from '@echoloop/vocabulary';
import type { UserOutcome } from './simulated-users';
import { RSS_GROUPS } from './rss-sampler';
import type { StageTiming } from './stages';

export const PROMPT = 'I feel lonely since I moved to a new city.';

/** The engine's greedy answer to the fixed prompt, from the base model or from an adapter. */
export async function greedy(modelUrl: string, model: string): Promise<string> {
  const body = await callJson<ChatCompletion>('model', {
    method: 'POST',
    url: `${modelUrl}/chat/completions`,
    body: { model, messages: [{ role: 'user', content: PROMPT }], temperature: 0, max_tokens: 60 },
    timeoutMs: 600_000,
  });
  return body.choices[0]?.message.content ?? '';
}

export interface GenerationReport
  extends Pick<Generation, 'index' | 'parent' | 'evaluation' | 'defaultAfter'>,
    ReturnType<typeof summarizeJob> {
  users: { simulated: number; swipesKept: number; ties: number; meanTurns: number };
  job: ReturnType<typeof summarizeJob>['job'] & { status: string; reason: string | null };
  experiment: Omit<ExperimentOutcome, 'users'> | null;
}

export interface LoopReport {
  runId: string;
  startedAt: string;
  finishedAt: string;
  generations: GenerationReport[];
  prompt: { text: string; base: string; final: string; finalCheckpoint: string };
  stages: StageTiming[];
  refreshPhases: StageTiming[];
}

const userCounts = (users: UserOutcome[]) => ({
  simulated: users.length,
  swipesKept: users.filter((u) => u.kept !== null).length,
  ties: users.filter((u) => u.kept === null).length,
  meanTurns: users.length ? Number((users.reduce((a, u) => a + u.turns, 0) / users.length).toFixed(2)) : 0,
});

export function generationReport(g: Generation): GenerationReport {
  const summary = summarizeJob(g.job);
  const { users: routed, ...experiment } = g.experiment ?? { users: [] };
  return {
    index: g.index,
    parent: g.parent,
    ...summary,
    users: userCounts([...g.users, ...routed]),
    job: { ...summary.job, status: g.job.status, reason: g.job.reason },
    evaluation: g.evaluation,
    experiment: g.experiment ? (experiment as Omit<ExperimentOutcome, 'users'>) : null,
    defaultAfter: g.defaultAfter,
  };
}

function summarizeJob(job: RlJob) {
  const curve = job.metrics?.curve ?? [];
  const d = job.dataset;
  return {
    data: d && {
      pairs: d.export?.rows ?? 0,
      train: d.train?.rows ?? 0,
      validation: d.validation?.rows ?? 0,
      heldout: d.heldout?.rows ?? 0,
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

const interval = (i: [number, number] | null | undefined) => (i ? `[${fmt(i[0], 3)}, ${fmt(i[1], 3)}]` : '');

/** The gate's result in a cell: passed or failed, and each measured check's paired difference with its interval. */
function gateCell(gate: RlJob['gate']): string {
  if (!gate) return 'not run';
  const measured = (gate.checks ?? [])
    .filter((c) => c.interval)
    .map((c) => `${c.name} Δ ${fmt(c.delta, 3)} ${interval(c.interval)}`);
  return `${gate.passed ? 'passed' : 'failed'}${gate.better ? ' (better)' : ''}: ${measured.join('; ')}`;
}

/** The per-generation table of the closing report: data, training, gate, decision, independent evaluation. */
export function generationTable(generations: GenerationReport[]): string[] {
  const rows = generations.map((g) => {
    const v = g.training.validation.find((p) => p.step === g.training.selection?.step);
    const data = g.data
      ? `${g.data.pairs} (+${g.data.replayed} replayed) ${g.data.train}/${g.data.validation}/${g.data.heldout}`
      : '-';
    const steps = g.training.selection
      ? g.training.selection.generalised
        ? `${g.training.selection.step} of ${g.training.steps}`
        : `none of ${g.training.steps}`
      : '-';
    const outcome =
      g.job.status === 'succeeded' ? 'candidate served' : `${g.job.status}: ${g.job.reason ?? ''}`;
    const decision = g.experiment ? `${g.experiment.decision} (${g.experiment.reason})` : outcome;
    const ev = g.evaluation
      ? `${g.evaluation.verdict}: Δ ${fmt(g.evaluation.delta?.mean, 3)} ${interval(g.evaluation.delta?.interval)} (${g.evaluation.profiles} profiles)`
      : '-';
    return `| ${g.index} | ${g.parent} | ${data} | ${steps} | ${fmt(v?.valAccuracy ?? g.training.selection?.valAccuracy, 2)} | ${fmt(v?.klToParent ?? g.training.selection?.klToParent, 4)} | ${gateCell(g.gate)} | ${decision} | ${ev} |`;
  });
  return [
    '| gen | parent | pairs (train/val/held out) | step chosen | val acc | KL to parent | gate (paired Δ, 95% CI) | decision | independent evaluation (Δ, 95% CI) |',
    '|---:|---|---|---|---:|---:|---|---|---|',
    ...rows,
  ];
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

/** A finished loop's tables (generations, stages, refresh phases), as printed and as docs/benchmarks.md shows them. */
export function reportTables(report: Pick<LoopReport, 'generations' | 'stages' | 'refreshPhases'>): string {
  return [
    ...generationTable(report.generations),
    '',
    ...stageTable(report.stages),
    '',
    ...stageTable(report.refreshPhases),
  ].join('\n');
}

export function printReport(report: LoopReport, file: string): void {
  const lines = [
    ...report.generations.flatMap((g) => [
      `generation ${g.index} (parent ${g.parent}, default after ${g.defaultAfter})`,
      `  users: ${g.users.simulated} simulated, ${g.users.swipesKept} swipes kept, ${g.users.ties} ties, ${g.users.meanTurns} turns each on average`,
      `  data: ${g.data ? `${g.data.pairs} new pairs + ${g.data.replayed} replayed (${g.data.train} train / ${g.data.validation} validation / ${g.data.heldout} held out), dataset ${g.data.datasetId}` : 'none'}`,
      `  training: ${g.training.steps} steps, loss ${fmt(g.training.firstLoss)} -> ${fmt(g.training.lastLoss)}`,
      ...g.training.validation.map(
        (v) =>
          `    validation at step ${v.step}: loss ${fmt(v.valLoss)}, accuracy ${fmt(v.valAccuracy, 2)}, margin ${fmt(v.valMargin)}, KL to parent ${fmt(v.klToParent)}`,
      ),
      `  selected: ${g.training.selection ? `${g.training.selection.generalised ? `step ${g.training.selection.step}` : 'nothing'} (${g.training.selection.reason})` : 'none'}`,
      `  job ${g.job.id}: ${g.job.status}${g.job.reason ? ` (${g.job.reason})` : ''}`,
      ...(g.gate ? [`  gate: ${gateCell(g.gate)}`, ...gateLines(g.gate).map((line) => `    ${line}`)] : []),
      ...(g.evaluation
        ? [
            `  independent evaluation (${g.evaluation.scorer}): parent ${fmt(g.evaluation.parent.mean, 3)}, candidate ${fmt(g.evaluation.candidate.mean, 3)}, ${g.evaluation.verdict}`,
          ]
        : []),
      `  experiment: ${g.experiment ? `${g.experiment.decision} (${g.experiment.reason}); replies per arm ${JSON.stringify(g.experiment.arms)}` : 'none'}`,
    ]),
    '',
    ...reportTables(report).split('\n'),
    '',
    `prompt: "${report.prompt.text}"`,
    `  base:  ${JSON.stringify(report.prompt.base)}`,
    `  final default (${report.prompt.finalCheckpoint}): ${JSON.stringify(report.prompt.final)}`,
    '',
    `report written to ${file}`,
  ];
  for (const line of lines) say('report', line);
}

export function writeReport(report: object, file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
