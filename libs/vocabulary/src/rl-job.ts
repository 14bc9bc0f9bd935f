import { z } from 'zod';

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

export const rlJobDetail = rlJobSummary.extend({
  hyperparameters: json,
  requestedBy: z.string().nullable(),
  externalId: z.string().nullable(),
  dataset: json.nullable().describe("The snapshot's manifest: id, kind, rows per split (train, heldout)"),
  metrics: json
    .nullable()
    .describe('Training metrics: `curve` (one point per step), `last`, and the summary'),
  output: json.nullable().describe("The job's output manifest (adapters, base model)"),
  gate: json
    .nullable()
    .describe('passed, reasons, notes, sentient and heldout: candidate, default and delta'),
  logsTail: z.string().nullable().describe("The last lines of the job's log"),
  cancelRequested: z.boolean(),
});

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
