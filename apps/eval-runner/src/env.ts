import { port, serviceEnv } from '@echoloop/config';
import { type z } from 'zod';

export const evalRunnerEnv = serviceEnv.extend({
  PORT: port(3003),
});

export type EvalRunnerEnv = z.infer<typeof evalRunnerEnv>;
