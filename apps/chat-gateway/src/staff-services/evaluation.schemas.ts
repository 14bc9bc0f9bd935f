import { EVALUATION_MODES, EVALUATION_STATUSES } from '@echoloop/vocabulary';
import { z } from 'zod';
import { idSchema } from './rl-jobs.schemas';

export const compareQuery = z.object({ a: idSchema, b: idSchema }).strict();
export type CompareQuery = z.infer<typeof compareQuery>;

const at = z.iso.datetime({ offset: true });
const rate = z.number().min(0).max(1).nullable();
const pinned = z.object({ baseUrl: z.string(), model: z.string() });

/** SAGE's figures for a group of episodes (null when none finished). */
const metricGroup = z.object({
  count: z.number().int(),
  meanFinalScore: z.number().nullable(),
  successes: z.number().int(),
  failures: z.number().int(),
  successRate: rate,
  failureRate: rate,
});

const benchmarkMetrics = metricGroup.extend({
  errors: z.number().int(),
  byHiddenNeed: z.record(z.string(), metricGroup),
  byPersonaType: z.record(z.string(), metricGroup),
});

const epmMetrics = z.object({
  count: z.number().int(),
  successes: z.number().int(),
  failures: z.number().int(),
  undecided: z.number().int(),
  successRate: rate,
  failureRate: rate,
  meanInitialDeficit: z.number().nullable(),
  meanEnergyRatio: z.number().nullable(),
  meanDistanceImprovement: z.number().nullable(),
});

export const evaluationReport = z.object({
  title: z.string(),
  createdAt: at,
  pinned: z.record(z.string(), z.string()).describe('The policy, simulator and judge models, as run'),
  metrics: benchmarkMetrics,
  epm: epmMetrics.optional().describe("EMPA's C/A/P figures, when a judge rated the episodes"),
  episodes: z.array(
    z
      .object({
        profileId: z.string(),
        turns: z.number().int(),
        finalScore: z.number(),
        endReason: z.string(),
      })
      .loose(),
  ),
});

const evaluationBase = z.object({
  id: z.uuid(),
  checkpointId: z.string(),
  suite: z.string(),
  mode: z.enum(EVALUATION_MODES),
  status: z.enum(EVALUATION_STATUSES),
  policy: pinned,
  simulator: pinned,
  judge: pinned.nullable(),
  metrics: z.record(z.string(), z.unknown()).nullable().describe("The report's metrics, once finished"),
  error: z.string().nullable(),
  createdAt: at,
  finishedAt: at.nullable(),
});

export const evaluationSummary = evaluationBase.extend({
  profiles: z.number().int().describe('How many profiles it plays'),
});
export const evaluationList = z.object({ items: z.array(evaluationSummary) });

export const evaluationView = evaluationBase.extend({ profileIds: z.array(z.string()) });

export const evaluationDetail = evaluationView.extend({
  report: evaluationReport.describe('What has finished so far (all of it once finished)'),
});

export const evaluationComparison = z.object({
  a: evaluationReport.extend({ id: z.uuid() }),
  b: evaluationReport.extend({ id: z.uuid() }),
});
