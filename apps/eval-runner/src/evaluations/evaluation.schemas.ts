import { z } from 'zod';

export const createEvaluationSchema = z
  .object({
    checkpointId: z.string().min(1),
    suite: z.literal('sentient').default('sentient'),
    /** Profile ids to play; default: the benchmark pool (optionally the first `limit`). */
    profiles: z.array(z.string().min(1)).min(1).max(500).optional(),
    pool: z.enum(['benchmark', 'train']).default('benchmark'),
    limit: z.number().int().min(1).max(500).optional(),
  })
  .strict();
export type CreateEvaluationInput = z.infer<typeof createEvaluationSchema>;
