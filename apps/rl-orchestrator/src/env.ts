import { port, serviceEnv } from '@echoloop/config';
import { z } from 'zod';

export const orchestratorEnv = serviceEnv.extend({
  PORT: port(3002),
  RAY_DASHBOARD_URL: z.url().default('http://127.0.0.1:8265'),
});

export type OrchestratorEnv = z.infer<typeof orchestratorEnv>;
