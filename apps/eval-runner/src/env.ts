import { port, serviceEnv } from '@echoloop/config';
import { checkpointEndpointEnv } from '@echoloop/platform';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const evalRunnerEnv = serviceEnv.extend({
  PORT: port(3003),
  /** The simulated users' model (analyser and actor), pinned in every evaluation it runs. */
  SIMULATOR_BASE_URL: z.url().default('http://127.0.0.1:18000/v1'),
  SIMULATOR_API_KEY: z.string().min(1).default('local'),
  SIMULATOR_MODEL: z.string().min(1).default('smollm2-135m-instruct'),
  /** The EPM judge (initial deficit and per-turn C/A/P ratings), pinned in every 'epm' evaluation. */
  JUDGE_BASE_URL: z.url().default('http://127.0.0.1:18000/v1'),
  JUDGE_API_KEY: z.string().min(1).default('local'),
  JUDGE_MODEL: z.string().min(1).default('smollm2-135m-instruct'),
  /** The served models' key: checkpoints registered by the gateway name it as their endpoint's apiKeyEnv. */
  LLM_API_KEY: z.string().min(1).default('local'),
  /** The served models' URL, as the gateway has it: its host is always allowed for checkpoints' endpoints. */
  LLM_BASE_URL: z.url().default('http://127.0.0.1:18000/v1'),
  /** Hosts checkpoints' endpoints may be on, and the variables their keys may come from (as in the gateway). */
  ...checkpointEndpointEnv,
  /** Simulator sessions (RL rollouts) untouched this long are deleted. */
  SIMULATOR_SESSION_TTL_HOURS: positiveInt(72),
  PROFILES_FILE: z.string().min(1).default('data/sentient/profiles.jsonl'),
  CHARACTER_CARD_FILE: z.string().min(1).default('data/characters/echo.card.json'),
  EVAL_CONCURRENCY: positiveInt(2),
  /** Reply budget of the policy per turn. */
  EVAL_MAX_TOKENS: positiveInt(256),
});

export type EvalRunnerEnv = z.infer<typeof evalRunnerEnv>;
