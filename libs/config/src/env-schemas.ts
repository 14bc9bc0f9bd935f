import { z } from 'zod';

/** Defaults match the local stack started by tools/stack (loopback ports that avoid a system PostgreSQL). */
export const LOCAL_DATABASE_URL = 'postgres://echoloop:echoloop@127.0.0.1:55432/echoloop';
export const LOCAL_KAFKA_BROKERS = '127.0.0.1:19092';

const csv = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()))
  .pipe(z.array(z.string().min(1)).min(1));

/** `true` or `false`, nothing else (so a typo is a start-up error, not a silent false). */
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false'])
    .default(fallback ? 'true' : 'false')
    .transform((value) => value === 'true');

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65_535).default(fallback);

/** Variables every service reads. Apps extend this with their own. */
export const serviceEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default(LOCAL_DATABASE_URL),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  KAFKA_BROKERS: csv.default([LOCAL_KAFKA_BROKERS]),
  KAFKA_CLIENT_ID: z.string().min(1).optional(),
  /** How long Kafka keeps the messages of the topics an app creates (events carry user text). */
  KAFKA_RETENTION_HOURS: z.coerce.number().positive().default(168),
  /** Whether users who never chose count as consenting to training on their conversations (exports, RL data). */
  TRAINING_CONSENT_DEFAULT: flag(false),
  /** Published outbox rows (events with user text) are deleted after this many hours. */
  OUTBOX_RETENTION_HOURS: z.coerce.number().positive().default(24),
  /**
   * Whether answers are checked against the response schema their route documents (`@ApiDoc`): `enforce`
   * (tests: a drift is a 500 naming the route), `log` (a warning), or `off`.
   */
  RESPONSE_CONTRACTS: z.enum(['off', 'log', 'enforce']).default('off'),
});

export type ServiceEnv = z.infer<typeof serviceEnv>;
