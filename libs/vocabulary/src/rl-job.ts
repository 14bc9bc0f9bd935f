import { z } from 'zod';
import { gateReport } from './gate-report';

/** A refresh's life: the active stages in order, then one of the end states. */
export const RL_JOB_ACTIVE_STATUSES = [
  'queued',
  'snapshotting',
  'training',
  'loading',
  'gating',
  'experimenting',
] as const;
/** `rendered`: a template that only renders a config to run elsewhere (no adapter, nothing served). */
export const RL_JOB_END_STATUSES = ['succeeded', 'rendered', 'failed', 'cancelled', 'skipped'] as const;
export const RL_JOB_STATUSES = [...RL_JOB_ACTIVE_STATUSES, ...RL_JOB_END_STATUSES] as const;
export type RlJobStatus = (typeof RL_JOB_STATUSES)[number];
export type RlJobActiveStatus = (typeof RL_JOB_ACTIVE_STATUSES)[number];
export type RlJobEndStatus = (typeof RL_JOB_END_STATUSES)[number];

export const isRlJobEnded = (status: string): status is RlJobEndStatus =>
  (RL_JOB_END_STATUSES as readonly string[]).includes(status);

/** What started a refresh. */
export const RL_TRIGGERS = ['schedule', 'threshold', 'manual'] as const;
export type RlTrigger = (typeof RL_TRIGGERS)[number];

/**
 * The RL job templates, by name: `trl-dpo` (offline DPO on preference pairs), `trl-grpo` (online GRPO, rewarded by
 * the labeller), `verl-grpo` (renders a multi-turn GRPO run for a GPU cluster; trains nothing itself).
 */
export const RL_TEMPLATES = ['trl-dpo', 'trl-grpo', 'verl-grpo'] as const;
export type RlTemplateName = (typeof RL_TEMPLATES)[number];

/** A page of RL jobs, newest first. */
export const listRlJobsQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(200).default(50) })
  .strict();
export type ListRlJobsQuery = z.infer<typeof listRlJobsQuery>;

const json = z.record(z.string(), z.unknown());
const at = z.iso.datetime({ offset: true });
const count = z.number().int();
const measure = z.number().nullable().optional();
const split = z.looseObject({ rows: count, sha256: z.string().optional(), file: z.string().optional() });

/**
 * The snapshot a job trains on: the data library's export, split by user. A job skipped for too little data keeps
 * the same shape, rows only, its files removed. Open objects, every field but the id optional: a job from an
 * older version may lack some, and a reader takes what it knows.
 */
export const rlJobDataset = z.looseObject({
  id: z.string(),
  kind: z.string().optional().describe('`preferences` (pairs, DPO) or `verl` (prompts, GRPO)'),
  cutoff: z.string().optional().describe('Turns replied before this instant are in it'),
  parent: z
    .looseObject({
      checkpointId: z.string(),
      jobId: z.string().nullable().describe('The job that trained it; null for a base model'),
      adapterPath: z.string().nullable().optional(),
      cutoff: z.string().nullable().optional(),
    })
    .optional(),
  train: split.optional(),
  validation: split.optional(),
  heldout: split.optional(),
  replay: z
    .looseObject({ fraction: z.number(), read: count, kept: count })
    .optional()
    .describe("Rows older than the parent's cutoff that were read, and those replayed into the split"),
  export: z.looseObject({ rows: count.optional() }).optional().describe("The data library's export manifest"),
});

/** A training step as the job reported it (DPO: loss and reward accuracy; GRPO: the rewards of its rollouts). */
export const trainingPoint = z.looseObject({
  step: count,
  of: count.optional(),
  loss: measure,
  rewardAccuracy: measure,
  reward: measure,
  rewardStd: measure,
  sentientReward: measure.describe('GRPO: the mean emotion its simulated conversations ended on'),
});

/** A validation point: on other users than training's, and the drift from the parent (step 0 is the parent). */
export const validationPoint = z.looseObject({
  step: count,
  valLoss: measure,
  valAccuracy: measure,
  valMargin: measure,
  valReward: measure,
  klToParent: measure,
});

/** The step training kept, and whether it generalised (python/echoloop_train/selection.py). */
export const trainingSelection = z.looseObject({
  generalised: z.boolean(),
  reason: z.string().optional(),
  step: count.nullable().optional(),
  valAccuracy: measure,
  valReward: measure,
  klToParent: measure,
  maxKl: z.number().optional(),
  stoppedBy: z
    .string()
    .nullable()
    .optional()
    .describe('`kl_budget`, `patience`, or null: it ran its planned steps'),
});
export type TrainingSelection = z.infer<typeof trainingSelection>;

export const rlJobMetrics = z.looseObject({
  curve: z.array(trainingPoint).optional(),
  validation: z.array(validationPoint).optional(),
  last: json.nullable().optional().describe('The last progress event of any stage'),
  finalLoss: measure,
  selection: trainingSelection.optional(),
});

/** What a finished training run produced (its manifest), and where its adapter is served once loaded. */
export const rlJobOutput = z.looseObject({
  template: z.string().optional(),
  datasetId: z.string().optional(),
  adapters: z
    .array(z.looseObject({ format: z.string(), path: z.string(), sha256: z.string().optional() }))
    .optional(),
  baseModel: z.looseObject({ name: z.string() }).optional(),
  metrics: z.looseObject({ selection: trainingSelection.optional() }).optional(),
  hyperparameters: json.optional(),
  data: z.record(z.string(), z.number()).optional().describe('Rows the run read, by source'),
  parent: z
    .looseObject({ adapter: z.string(), sha256: z.string() })
    .nullable()
    .optional()
    .describe('The adapter it was trained from; null: a fresh adapter on the base'),
  peakRssMb: z.number().optional(),
  serving: z.looseObject({ adapterName: z.string(), defaultCheckpointId: z.string() }).optional(),
});

/** An RL job as the orchestrator answers it (and the gateway passes it on). */
export const rlJobSummary = z.object({
  id: z.uuid(),
  status: z.enum(RL_JOB_STATUSES),
  trigger: z.enum(RL_TRIGGERS),
  template: z.string(),
  runner: z.string(),
  checkpointId: z.string().nullable().describe('The adapter served as a checkpoint, once loaded'),
  experimentId: z.uuid().nullable(),
  reason: z.string().nullable().describe('Why it failed, was cancelled or skipped'),
  createdAt: at,
  updatedAt: at,
  finishedAt: at.nullable(),
});

export const rlJobList = z.object({ items: z.array(rlJobSummary) });
export type RlJobSummary = z.infer<typeof rlJobSummary>;

export const rlJobDetail = rlJobSummary.extend({
  hyperparameters: json,
  requestedBy: z.string().nullable(),
  externalId: z.string().nullable(),
  dataset: rlJobDataset.nullable(),
  metrics: rlJobMetrics
    .nullable()
    .describe('Training metrics: one point per step and per validation, and the summary'),
  output: rlJobOutput.nullable(),
  gate: gateReport.nullable(),
  logsTail: z.string().nullable().describe("The last lines of the job's log"),
  cancelRequested: z.boolean(),
});

export type RlJobDetail = z.infer<typeof rlJobDetail>;

export const rlJobCancelled = z.object({
  id: z.uuid(),
  status: z.enum(RL_JOB_STATUSES),
  cancelRequested: z.literal(true),
});

export const rlTriggers = z.object({
  schedule: z.object({ next: at.nullable().describe('The next scheduled refresh; null without a schedule') }),
  thresholds: z.object({ turns: z.number().int(), pairs: z.number().int() }).describe('0: not by that count'),
  newData: z.object({
    since: at.nullable(),
    turns: z.number().int(),
    pairs: z.number().int().nullable(),
  }),
  decisions: z.array(
    z.object({
      id: z.uuid(),
      at,
      trigger: z.enum(RL_TRIGGERS),
      decision: z.string().describe('`started` or `skipped`'),
      reason: z.string(),
      details: json,
      jobId: z.uuid().nullable(),
    }),
  ),
});
export type RlTriggers = z.infer<typeof rlTriggers>;
