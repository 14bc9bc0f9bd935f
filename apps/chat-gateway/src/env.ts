import { port, serviceEnv } from '@echoloop/config';
import { z } from 'zod';

export const gatewayEnv = serviceEnv.extend({
  PORT: port(3000),
  LLM_BASE_URL: z.url().default('http://127.0.0.1:18000/v1'),
  LLM_API_KEY: z.string().min(1).default('local'),
  LLM_MODEL: z.string().min(1).default('smollm2-135m-instruct'),
});

export type GatewayEnv = z.infer<typeof gatewayEnv>;
