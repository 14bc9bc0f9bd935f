import { z } from 'zod';
import { defineContract } from '../envelope';
import { TOPICS } from '../topics';

/** One reward component of a turn, as stored by the labeller. */
const componentLabel = z.object({
  component: z.enum(['empathy', 'humanlike', 'live_emotion', 'implicit']),
  /** `failed`: the judge gave no usable answer (see error); `skipped`: not sampled for this turn. */
  status: z.enum(['labelled', 'failed', 'skipped']),
  value: z.number().nullable(),
  /** The judge's discrete label (e.g. `better`, `4`, `humanlike`, a live emotion bucket, `left`). */
  label: z.string().nullable(),
  judgeModel: z.string().nullable(),
  promptVersion: z.string().nullable(),
  error: z.string().nullable(),
});

/**
 * A turn whose rewards are complete: every component labelled, failed or skipped, and the composite under the
 * configured weights. Published once per (turn, labeller version). Key: conversationId.
 */
export const rewardTurnLabelledV1 = defineContract(
  TOPICS.rewardTurnLabelled,
  1,
  z.object({
    turnId: z.uuid(),
    conversationId: z.uuid(),
    userId: z.uuid(),
    checkpointId: z.string().min(1),
    experimentId: z.uuid().nullable(),
    armId: z.string().min(1).nullable(),
    labellerVersion: z.string().min(1),
    components: z.array(componentLabel),
    composite: z.object({ value: z.number(), version: z.string().min(1) }).nullable(),
    /** The per-conversation live emotion score after this turn (RLVER scale: starts at 40, capped at 100). */
    emotionScore: z.number().nullable(),
    labelledAt: z.iso.datetime({ offset: true }),
  }),
);
