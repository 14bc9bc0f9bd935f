import { flag, port, serviceEnv } from '@echoloop/config';
import { datasetEnvShape, requireKeyInProduction } from '@echoloop/datasets';
import { EXPERIMENT_METRICS } from '@echoloop/experiments';
import { sideWorkEnv } from '@echoloop/llm';
import { apiKeyPolicyEnv, checkpointEndpointEnv } from '@echoloop/platform';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** Unset when empty: compose passes `${VAR:-}` through as an empty string. */
const optionalSetting = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

export const gatewayEnv = serviceEnv
  .extend({
    PORT: port(3000),
    /** The built web app (`nx build web`), served at `/` when the folder exists; relative to the working directory. */
    WEB_DIST_DIR: z.string().min(1).default('dist/apps/web'),
    /** HS256 signing key for access tokens; required in production, random per process otherwise. */
    JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Access tokens are short-lived; a refresh token (rotated on each use) renews them. */
    JWT_TTL_SECONDS: z.coerce.number().int().positive().default(900),
    /** A session not refreshed for this long ends by itself. */
    REFRESH_TTL_DAYS: z.coerce.number().positive().default(30),
    /**
     * A used refresh token presented again this soon after its use still renews the session (two tabs refreshing at
     * once), unless a newer token of the session has been used since; later, it ends the session. 0 turns it off.
     */
    REFRESH_REUSE_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    /**
     * Mirrors every `<topic>.dlq` topic into the dead_letters table, where `./echoloop dlq` and the admin API list,
     * replay and drop them; the group is shared by the gateway's replicas, so each parked message is mirrored once.
     */
    DEAD_LETTERS_MIRROR: flag(true),
    DEAD_LETTERS_GROUP_ID: z.string().min(1).default('chat-gateway.dead-letters'),
    /** Longest an account's cached state (roles, disabled, sessions) is trusted if a change notification is lost. */
    AUTH_STATE_CACHE_MS: ms(30_000),
    /** The default checkpoint, registered (or updated) from the LLM_* variables at start-up. */
    DEFAULT_CHECKPOINT_ID: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{1,62}$/)
      .default('base'),
    LLM_BASE_URL: z.url().default('http://127.0.0.1:18000/v1'),
    LLM_API_KEY: z.string().min(1).default('local'),
    LLM_MODEL: z.string().min(1).default('smollm2-135m-instruct'),
    LLM_FIRST_TOKEN_TIMEOUT_MS: ms(15_000),
    LLM_IDLE_TIMEOUT_MS: ms(10_000),
    /**
     * How long an idle connection to a model server is kept for the next request. Keep it below the server's
     * keep-alive timeout (vLLM: VLLM_HTTP_TIMEOUT_KEEP_ALIVE, 5 s by default); raising both spares a burst after a
     * pause the new connections.
     */
    LLM_KEEP_ALIVE_MS: ms(4_000),
    LLM_MAX_TOKENS: z.coerce.number().int().positive().default(256),
    /** The served model's context window (vLLM's max_model_len). */
    LLM_CONTEXT_TOKENS: z.coerce.number().int().positive().default(2_048),
    /** Login and registration attempts per minute from one client address (each costs a scrypt hash). */
    AUTH_ATTEMPTS_PER_MINUTE: z.coerce.number().int().positive().default(30),
    /** Attempts per minute on one account from one client address: what throttles a guesser. */
    AUTH_ACCOUNT_ATTEMPTS_PER_MINUTE: z.coerce.number().int().positive().default(10),
    /**
     * Failed sign-ins per minute on one account from all clients together: bounds a guesser spread over many
     * addresses, high enough that one client cannot lock the owner out.
     */
    AUTH_ACCOUNT_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(100),
    /** Turns a user may start per minute (burst included), per day, and stream at once. */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(20),
    DAILY_MESSAGE_QUOTA: z.coerce.number().int().positive().default(1_000),
    MAX_CONCURRENT_STREAMS: z.coerce.number().int().positive().default(2),
    /**
     * A stream slot held by a process that died is free again after this long; live processes renew theirs every
     * third of it.
     */
    STREAM_SLOT_TTL_MS: ms(60_000),
    /** Gateway processes on this machine (a cluster primary forks them; they share the port); 1 runs in-process. */
    GATEWAY_WORKERS: z.coerce.number().int().positive().max(64).default(1),
    /** Added to the prompt of a turn the crisis detector flags: care first, resources, never a refusal. */
    SAFETY_INSTRUCTIONS: z
      .string()
      .min(1)
      .default(
        '{{user}} may be in danger or distress. Stay in character but put their safety first: respond with warmth, ' +
          'take what they said seriously, do not refuse or change the subject, and gently encourage them to reach ' +
          'out to someone they trust or to local emergency services or a crisis line (for example 988 in the US, ' +
          '116 123 in the UK and Ireland, or findahelpline.com elsewhere).',
      ),
    /**
     * How often the export runner looks for exports whose process died (and for exports another replica queued
     * while busy); a new export wakes the runner of the replica that queued it, an erasure every replica's.
     */
    EXPORT_SWEEP_MS: ms(30_000),
    /** Longest user message accepted, in characters. */
    MAX_MESSAGE_CHARS: z.coerce.number().int().positive().default(4_000),
    /** Deltas are flushed to the client when this many ms passed or this many characters piled up. */
    DELTA_FLUSH_MS: ms(30),
    DELTA_FLUSH_CHARS: z.coerce.number().int().positive().default(64),
    /** The director steps in after every this many user turns of a conversation (Echo-N1: 5); 0 turns it off. */
    DIRECTOR_EVERY_USER_TURNS: z.coerce.number().int().min(0).default(5),
    /**
     * Director steps and deep persona extractions are model calls beside the replies: at most this many of each run
     * at once, at most *_QUEUE_SIZE more wait, and the rest are dropped (side_work_dropped_total), so they never pile
     * up in front of users' replies on the model server.
     */
    DIRECTOR_CONCURRENCY: z.coerce.number().int().positive().default(2),
    DIRECTOR_QUEUE_SIZE: z.coerce.number().int().min(0).default(16),
    DEEP_EXTRACTION_CONCURRENCY: z.coerce.number().int().positive().default(1),
    DEEP_EXTRACTION_QUEUE_SIZE: z.coerce.number().int().min(0).default(16),
    /** How often the running experiment is reviewed: its guardrails (a breach stops it), then its primary metric. */
    EXPERIMENT_GUARDRAIL_CHECK_MS: ms(30_000),
    /**
     * What the sequential test on the primary metric does once it is conclusive (always-valid p ≤ 0.05, both arms
     * with enough users): `automatic` promotes a clear winner and stops a clear loser, `recommend` only records
     * the decision it would take in the audit log, `off` neither.
     */
    EXPERIMENT_DECISIONS: z.enum(['automatic', 'recommend', 'off']).default('automatic'),
    EXPERIMENT_PRIMARY_METRIC: z.enum(EXPERIMENT_METRICS.map((m) => m.name)).default('composite'),
    /** Users each arm needs before a decision (the test's normal approximation holds from about here). */
    EXPERIMENT_DECISION_MIN_USERS: z.coerce.number().int().min(2).default(100),
    /** API keys' default and longest lifetime, and how long a rotated-out secret keeps working. */
    ...apiKeyPolicyEnv,
    /** Hosts checkpoints' endpoints may be on, and the variables their keys may come from. */
    ...checkpointEndpointEnv,
    ...sideWorkEnv,
    /** Conversations (with their messages and labels) not active for this many days are deleted; unset keeps them. */
    CONVERSATION_TTL_DAYS: optionalSetting(z.coerce.number().positive()),
    RETENTION_SWEEP_MS: ms(3_600_000),
    /** Pseudonym key and directory of dataset exports. */
    ...datasetEnvShape,
    /**
     * The RL orchestrator and the eval-runner behind the staff pages' `/v1/rl/*` and `/v1/evaluations*` routes, each
     * with the gateway's own service API key (an experimenter's, scoped to that service). Unset: those routes 503.
     */
    RL_ORCHESTRATOR_URL: optionalSetting(z.url()),
    RL_ORCHESTRATOR_API_KEY: optionalSetting(z.string().min(1)),
    EVAL_RUNNER_URL: optionalSetting(z.url()),
    EVAL_RUNNER_API_KEY: optionalSetting(z.string().min(1)),
    /** Longest the gateway waits for one of them to answer. */
    STAFF_SERVICES_TIMEOUT_MS: ms(8_000),
    /** Both or neither: this admin is created at start-up while no admin account exists (never a promotion). */
    BOOTSTRAP_ADMIN_EMAIL: optionalSetting(
      z
        .email()
        .max(254)
        .transform((value) => value.toLowerCase()),
    ),
    BOOTSTRAP_ADMIN_PASSWORD: optionalSetting(z.string().min(12, 'must be at least 12 characters').max(128)),
  })
  .superRefine((env, ctx) => {
    requireKeyInProduction(env, ctx);
    if (env.NODE_ENV === 'production' && !env.JWT_SECRET) {
      ctx.addIssue({
        code: 'custom',
        path: ['JWT_SECRET'],
        message: 'required in production (32+ characters)',
      });
    }
    if ((env.BOOTSTRAP_ADMIN_EMAIL === undefined) !== (env.BOOTSTRAP_ADMIN_PASSWORD === undefined)) {
      const missing = env.BOOTSTRAP_ADMIN_EMAIL ? 'BOOTSTRAP_ADMIN_PASSWORD' : 'BOOTSTRAP_ADMIN_EMAIL';
      ctx.addIssue({
        code: 'custom',
        path: [missing],
        message: 'set both bootstrap admin variables or neither',
      });
    }
  })
  .transform((env) => ({ ...env, JWT_SECRET: env.JWT_SECRET ?? randomBytes(32).toString('hex') }));

export type GatewayEnv = z.infer<typeof gatewayEnv>;

export const GATEWAY_ENV = Symbol('GATEWAY_ENV');
