import { z } from 'zod';

export const createEvaluationSchema = z
  .object({
    checkpointId: z.string().min(1),
    suite: z.literal('sentient').default('sentient'),
    /** 'sage': SAGE's 10-turn stop rule; 'epm': the C/A/P vector run, judged every turn, up to 45 turns. */
    mode: z.enum(['sage', 'epm']).default('sage'),
    /** Profile ids to play; default: the pool, or `limit` of it spread over the hidden needs. */
    profiles: z.array(z.string().min(1)).min(1).max(500).optional(),
    pool: z.enum(['benchmark', 'train']).default('benchmark'),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();
export type CreateEvaluationInput = z.infer<typeof createEvaluationSchema>;
