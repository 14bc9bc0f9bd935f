import { EVALUATION_STATUSES } from '@echoloop/persistence';
import { userText } from '@echoloop/platform';
import { z } from 'zod';

/** Checkpoint and profile ids: bounded, so the body is (see body-limits.ts). */
export const MAX_ID_CHARS = 200;
const id = () => userText().min(1).max(MAX_ID_CHARS);

export const createEvaluationSchema = z
  .object({
    checkpointId: id(),
    suite: z.literal('sentient').default('sentient'),
    /** 'sage': SAGE's 10-turn stop rule; 'epm': the C/A/P vector run, judged every turn, up to 45 turns. */
    mode: z.enum(['sage', 'epm']).default('sage'),
    /** Profile ids to play; default: the pool, or `limit` of it spread over the hidden needs. */
    profiles: z.array(id()).min(1).max(500).optional(),
    pool: z.enum(['benchmark', 'train']).default('benchmark'),
    limit: z.number().int().min(1).max(500).optional(),
    /** At most this many policy turns per conversation (a short run); default: the mode's own stop rule. */
    maxTurns: z.number().int().min(1).max(45).optional(),
  })
  .strict();
export type CreateEvaluationInput = z.infer<typeof createEvaluationSchema>;

export const listEvaluationsSchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(200).default(50),
    status: z.enum(EVALUATION_STATUSES).optional(),
  })
  .strict();
export type ListEvaluationsQuery = z.infer<typeof listEvaluationsSchema>;
