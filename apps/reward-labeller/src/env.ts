import { port, serviceEnv } from '@echoloop/config';
import { z } from 'zod';

export const labellerEnv = serviceEnv.extend({
  PORT: port(3001),
  LABELLER_GROUP_ID: z.string().min(1).default('reward-labeller'),
});

export type LabellerEnv = z.infer<typeof labellerEnv>;
