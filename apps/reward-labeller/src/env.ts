import { flag, port, serviceEnv } from '@echoloop/config';
import { sideWorkEnv } from '@echoloop/llm';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const labellerEnv = serviceEnv.extend({
  PORT: port(3001),
  LABELLER_GROUP_ID: z.string().min(1).default('reward-labeller'),
  /** Labels are unique per (turn, component, version): a new version re-labels, the old labels stay. */
  LABELLER_VERSION: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]{0,62}$/)
    .default('labeller-v1'),
  /** The judge models' OpenAI-compatible endpoint (vLLM). */
  JUDGE_BASE_URL: z.url().default('http://127.0.0.1:18000/v1'),
  JUDGE_API_KEY: z.string().min(1).default('local'),
  JUDGE_MODEL: z.string().min(1).default('smollm2-135m-instruct'),
  /** Judge calls in flight at once, across all partitions. */
  JUDGE_CONCURRENCY: positiveInt(8),
  /** Judge calls sent together in one request to vLLM's /chat/completions/batch (1: one request per call). */
  JUDGE_BATCH_SIZE: positiveInt(32),
  JUDGE_TIMEOUT_MS: positiveInt(30_000),
  /** Extra attempts after a transient judge failure (5xx, timeout, connection), with exponential backoff. */
  JUDGE_RETRIES: z.coerce.number().int().min(0).default(2),
  /** A judge's answer is one short rationale and its verdict (JUDGE_CONSTRAIN_ANSWERS): about 150 tokens. */
  JUDGE_MAX_TOKENS: positiveInt(256),
  /**
   * Constrain each judge's answer to the shape its parser reads (vLLM structured outputs, a regular expression):
   * short, and never unreadable. Off by default: on the 2-core CPU engine a pass with it on once stalled the
   * engine for 60 s (vLLM's "no available shared memory broadcast block" while compiling), which cost users'
   * replies. `./echoloop loop` turns it on (nobody else uses the engine then): there a batch of two constrained
   * answers took 5-8 s, and unconstrained the 135M judges rarely write a verdict line at all.
   */
  JUDGE_CONSTRAIN_ANSWERS: flag(false),
  /** Judges wait for users' replies on a shared engine to pass (JUDGE_TIMEOUT_MS starts after the wait). */
  ...sideWorkEnv,
  /** A turn with no next user message after this long counts as the user having left. */
  LEAVE_AFTER_MS: positiveInt(30 * 60_000),
  LEAVE_SWEEP_MS: positiveInt(15_000),
  /**
   * Coming back is in the reward: a user's turn in another conversation at least RETURN_MIN_GAP_MS (a new session)
   * and at most RETURN_WINDOW_MS after their previous turn credits the last RETURN_CREDIT_TURNS turns of that
   * previous conversation, once (their implicit reward, revised if already finished).
   */
  RETURN_MIN_GAP_MS: positiveInt(30 * 60_000),
  RETURN_WINDOW_MS: positiveInt(7 * 24 * 3_600_000),
  RETURN_CREDIT_TURNS: positiveInt(3),
  /**
   * A failed empathy or humanlike label (the judge down, an unreadable answer) is judged again, up to
   * LABEL_RETRY_MAX_ATTEMPTS judge rounds in all, the n-th retry LABEL_RETRY_BASE_MS × 4^(n-1) after the last;
   * swept every LABEL_RETRY_SWEEP_MS. 1 turns retries off.
   */
  LABEL_RETRY_MAX_ATTEMPTS: positiveInt(4),
  LABEL_RETRY_BASE_MS: positiveInt(60_000),
  LABEL_RETRY_SWEEP_MS: positiveInt(30_000),
  /** Feedback held for a turn that never came (its reply was deleted) is dropped after this long. */
  PENDING_FEEDBACK_TTL_MS: positiveInt(7 * 24 * 3_600_000),
  /**
   * CUPED's pre-period: a user newly in an experiment has the mean of each metric over their turns in this window
   * before their exposure recorded, the covariate that takes their own level out of the comparison.
   */
  EXPERIMENT_PRE_PERIOD_MS: positiveInt(14 * 24 * 3_600_000),
  /** Reward configuration as JSON (labels → levels, weights, sampling rates); defaults when unset. */
  REWARD_CONFIG: z.string().optional(),
  /** Partitions of chat.turn.completed.v1 handled in parallel (order holds within each). */
  LABELLER_PARTITIONS_CONCURRENTLY: positiveInt(4),
  /** A crashed labeller's partitions move to a live one after this long without heartbeats. */
  LABELLER_SESSION_TIMEOUT_MS: positiveInt(10_000),
});

export type LabellerEnv = z.infer<typeof labellerEnv>;
