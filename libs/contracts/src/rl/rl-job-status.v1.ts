import { RL_JOB_STATUSES, RL_TRIGGERS, type RlJobStatus } from '@echoloop/vocabulary';
import { z } from 'zod';
import { defineContract } from '../envelope';
import { TOPICS } from '../topics';

/**
 * An RL refresh changed status (queued, snapshotting, training, loading, gating, experimenting, then succeeded,
 * failed, cancelled or skipped). Key: jobId, so one job's changes stay in order. Superseded by rl.job.status.v2
 * (which adds `rendered`); still published for the consumers of v1.
 */
export const rlJobStatusV1 = defineContract(
  TOPICS.rlJobStatus,
  1,
  z.object({
    jobId: z.uuid(),
    // v1 predates `rendered` (v2 added it).
    status: z.enum(RL_JOB_STATUSES.filter((s): s is Exclude<RlJobStatus, 'rendered'> => s !== 'rendered')),
    previousStatus: z.string().nullable(),
    trigger: z.enum(RL_TRIGGERS),
    template: z.string().min(1),
    runner: z.string().min(1),
    datasetId: z.string().nullable(),
    checkpointId: z.string().nullable(),
    experimentId: z.uuid().nullable(),
    /** Why it failed, was cancelled or skipped. */
    reason: z.string().nullable(),
  }),
);
