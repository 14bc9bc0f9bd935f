import { RL_JOB_STATUSES, RL_TRIGGERS } from '@echoloop/vocabulary';
import { rlTemplateName } from '@echoloop/contracts';
import { userText } from '@echoloop/platform';
import { z } from 'zod';

/** Ids of RL jobs and evaluations: the services' uuids (v4), checked here before anything is forwarded. */
export const idSchema = z.uuidv4();

export const listRlJobsQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(200).default(50) })
  .strict();
export type ListRlJobsQuery = z.infer<typeof listRlJobsQuery>;

/** A refresh by hand: the configured template unless one is named, and why it was asked for. */
export const startRlJobSchema = z
  .object({
    template: rlTemplateName.optional(),
    note: userText().trim().max(500).optional(),
  })
  .strict();
export type StartRlJobInput = z.infer<typeof startRlJobSchema>;

const json = z.record(z.string(), z.unknown());
const at = z.iso.datetime({ offset: true });

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
