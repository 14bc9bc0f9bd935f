import { z } from 'zod';
import { idSchema } from './rl-jobs.schemas';

export const compareQuery = z.object({ a: idSchema, b: idSchema }).strict();
export type CompareQuery = z.infer<typeof compareQuery>;
