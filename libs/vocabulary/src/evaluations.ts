import { z } from 'zod';

/** An evaluation's life, and how it plays its simulated users. */
export const EVALUATION_STATUSES = ['running', 'finished', 'failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];
/** 'sage': SAGE's 10-turn stop rule; 'epm': the C/A/P vector run, judged every turn, up to 45 turns. */
export const EVALUATION_MODES = ['sage', 'epm'] as const;
export type EvaluationMode = (typeof EVALUATION_MODES)[number];

/** Checkpoint and profile ids: bounded ASCII, so that 500 of them stay well under every body limit. */
export const EVALUATION_ID_MAX_CHARS = 200;
const id = () =>
  z
    .string()
    .min(1)
    .max(EVALUATION_ID_MAX_CHARS)
    .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits, dot, dash, underscore, colon');

/**
 * A checkpoint on the sentient benchmark, some profiles or `limit` of a pool: as the gateway takes it from staff
 * and the eval-runner from the gateway and the rl-orchestrator.
 */
export const createEvaluationRequest = z
  .object({
    checkpointId: id(),
    suite: z.literal('sentient').default('sentient'),
    mode: z.enum(EVALUATION_MODES).default('sage'),
    /** Profile ids to play; default: the pool, or `limit` of it spread over the hidden needs. */
    profiles: z.array(id()).min(1).max(500).optional(),
    pool: z.enum(['benchmark', 'train']).default('benchmark'),
    limit: z.number().int().min(1).max(500).optional(),
    /** At most this many policy turns per conversation (a short run); default: the mode's own stop rule. */
    maxTurns: z.number().int().min(1).max(45).optional(),
  })
  .strict();
export type CreateEvaluationRequest = z.infer<typeof createEvaluationRequest>;

/** A page of evaluations, newest first, optionally of one status. */
export const listEvaluationsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    status: z.enum(EVALUATION_STATUSES).optional(),
  })
  .strict();
export type ListEvaluationsQuery = z.infer<typeof listEvaluationsQuery>;

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
  epmQ: z
    .object({
      episodes: z.number().int(),
      index: z.number(),
      outcome: z.number(),
      efficiency: z.number(),
      stability: z.number(),
      indices: z.object({
        rdi: z.number(),
        eTotal: z.number(),
        sNet: z.number(),
        rho: z.number(),
        sProj: z.number(),
        tau: z.number(),
        rPos: z.number(),
        align: z.number(),
        pen: z.number(),
      }),
    })
    .nullable()
    .optional()
    .describe(
      "EMPA's EPM-Q, 0–100: 0.4·outcome (distance improvement, energy, net score) + 0.2·efficiency (energy per turn, projection, path straightness) + 0.4·stability (positive share, alignment, penalty)",
    ),
});

/** An evaluation's report: its figures and the episodes finished so far. */
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
