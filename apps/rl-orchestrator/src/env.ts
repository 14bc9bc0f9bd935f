import { GATE_CHECK_NAMES } from '@echoloop/vocabulary';
import { rlTemplateName } from '@echoloop/contracts';
import { flag, port, serviceEnv } from '@echoloop/config';
import { POPULATIONS, requireKeyInProduction } from '@echoloop/datasets';
import { checkpointEndpointEnv } from '@echoloop/platform';
import { z } from 'zod';

const unset = (value: unknown) => (value === '' ? undefined : value);
const seconds = (fallback: number) => z.coerce.number().positive().default(fallback);

export const orchestratorEnv = serviceEnv
  .extend({
    PORT: port(3002),
    /** HMAC key of the snapshot's pseudonyms (the same variable as the gateway's exports). */
    EXPORT_PSEUDONYM_KEY: z.string().min(32, 'must be at least 32 characters').optional(),

    /** Where snapshots and job outputs (adapters, manifests) are written; job runners must see the same path. */
    RL_WORK_DIR: z.string().min(1).default('.infra/rl'),
    /** `ray` (the Ray Jobs REST API) or `local` (a child process of this app, for machines without Ray). */
    RL_RUNNER: z.enum(['ray', 'local']).default('ray'),
    RAY_DASHBOARD_URL: z.url().default('http://127.0.0.1:8265'),
    RL_TEMPLATE: rlTemplateName.default('trl-dpo'),
    /** The Python the templates run with (the train environment: tools/python/venv.sh train). */
    RL_PYTHON: z.string().min(1).default('python3'),
    /** The repository's python/ folder (the templates' package), absolute for Ray. */
    RL_PYTHON_PATH: z.string().min(1).default('python'),
    /** The base model's weights (the GGUF the local engine's folder is converted from); training reads the same. */
    RL_BASE_GGUF: z.string().min(1).default('.infra/models/smollm2-135m-instruct.Q4_1.gguf'),
    /** The jobs' cache of heavy files (the base model converted to a Hugging Face folder); theirs by default. */
    ECHOLOOP_CACHE_DIR: z.preprocess(unset, z.string().min(1).optional()),
    RL_MAX_STEPS: z.coerce.number().int().min(1).max(100_000).default(200),
    /**
     * CPU threads of a training job (default: every core it has). On a machine shared with other work, 1: two
     * threads on two busy cores wait on each other (a 3-step job took 183 s with 2 threads, 54 s with 1, beside two
     * busy loops).
     */
    RL_TRAIN_THREADS: z.preprocess(unset, z.coerce.number().int().min(1).max(512).optional()),
    /**
     * GPUs a training job asks Ray for (entrypoint_num_gpus): Ray starts it on a worker that has them, and the
     * template trains on them (0, the default: CPU, as on this stack). The local runner ignores it.
     */
    RL_JOB_GPUS: z.coerce.number().min(0).max(64).default(0),
    /**
     * The GRPO templates: the sentient profiles whose training pool's openers join the prompts, played by the
     * eval-runner's simulator, which must read the same file (trl-grpo: each reply rewarded by the simulated user's
     * emotion after it, RLVER; verl-grpo: rows for its sentient-user interaction); empty: real chats only.
     */
    RL_GRPO_PROFILES: z.string().default('data/sentient/profiles.jsonl'),
    /** Passes over the training pairs; RL_MAX_STEPS caps the steps they make. */
    RL_EPOCHS: z.coerce.number().gt(0).max(100).default(3),
    /** Evaluations without a better validation step before training stops. */
    RL_PATIENCE: z.coerce.number().int().min(1).max(100).default(2),
    /**
     * The trust region of training, in nats per token of KL to the parent on the fixed reference prompts: steps
     * beyond it are never kept, and the gate refuses a candidate beyond it.
     */
    RL_MAX_KL: z.coerce.number().gt(0).max(100).default(1),
    /** The template's learning rate when a job names none (trl-dpo: 5e-4). */
    RL_LEARNING_RATE: z.preprocess(unset, z.coerce.number().gt(0).max(1).optional()),
    /** The serving endpoints' host (the default checkpoint's); others must be in CHECKPOINT_ALLOWED_HOSTS. */
    LLM_BASE_URL: z.url().default('http://127.0.0.1:18000/v1'),
    /** The serving endpoints' key when a checkpoint names it (`apiKeyEnv`): adapters load with it. */
    LLM_API_KEY: z.string().min(1).default('local'),
    ...checkpointEndpointEnv,
    /** Keep the endpoints' LoRA adapters equal to the desired state (AdapterReconciler); `false` on a replica that must not. */
    ADAPTER_RECONCILE: flag(true),
    /** How often the reconciler compares every endpoint with the desired state when nothing announced a change. */
    ADAPTER_RECONCILE_SECONDS: seconds(15),

    /** A cron expression (5 or 6 fields) that triggers a refresh; none when unset. */
    RL_SCHEDULE: z.preprocess(unset, z.string().min(9).max(100).optional()),
    /** A refresh triggers when this many turns were labelled since the last one (0: never by turns). */
    RL_THRESHOLD_TURNS: z.coerce.number().int().min(0).default(0),
    /** ... or when this many new preference pairs exist (0: never by pairs). */
    RL_THRESHOLD_PAIRS: z.coerce.number().int().min(0).default(0),
    /** How often the thresholds are checked. */
    RL_THRESHOLD_POLL_SECONDS: seconds(30),
    /** Fewer pairs than this in the training split and the refresh is skipped. */
    RL_MIN_PAIRS: z.coerce.number().int().min(1).default(8),
    /** The share of users held out for the gate. */
    RL_HELDOUT_FRACTION: z.coerce.number().min(0).max(0.5).default(0.2),
    /** The share of users kept apart to validate training (choose the step, stop early). */
    RL_VALIDATION_FRACTION: z.coerce.number().min(0).max(0.5).default(0.2),
    /**
     * Fewer validation pairs than this and the refresh is skipped: on n pairs the 95% interval of an accuracy of
     * 0.75 is ±1.96·√(0.1875/n); at 16 that is 0.54-0.96, clear of chance (0.5), while on 8 it is 0.45-1.05 and a
     * learnt step cannot be told from a lucky one.
     */
    RL_MIN_VALIDATION_PAIRS: z.coerce.number().int().min(1).default(16),
    /** A user's side of the split comes from this seed: fixed, so a held-out user is never trained on later. */
    RL_SPLIT_SEED: z.string().min(1).default('echoloop-users-v1'),
    /** The share of the data older than the parent's snapshot replayed in a refresh that builds on a parent. */
    RL_REPLAY_FRACTION: z.coerce.number().min(0).max(1).default(0.25),
    /** Whose turns refreshes count and train on: people's, or (the RL loop's orchestrator) simulated users'. */
    RL_POPULATION: z.enum(POPULATIONS).default('people'),
    RL_JOB_POLL_SECONDS: seconds(2),
    /** `false`: this replica serves the API and triggers but drives no job (maintenance, an API-only replica). */
    RL_DRIVE_JOBS: flag(true),
    /** How long a stage keeps retrying a service that is away before the job fails. */
    RL_RETRY_SECONDS: seconds(1_800),

    /** An experimenter's API key valid for the gateway, the eval-runner and the labeller. */
    SERVICE_API_KEY: z.preprocess(unset, z.string().min(1).optional()),
    GATEWAY_URL: z.url().default('http://127.0.0.1:3000'),
    EVAL_RUNNER_URL: z.url().default('http://127.0.0.1:3003'),
    LABELLER_URL: z.url().default('http://127.0.0.1:3001'),

    /**
     * Sentient-benchmark profiles the gate plays for the candidate and for the default (0: off). With 24 paired
     * profiles the 95% interval of the difference is ±0.42 standard deviations of a profile's difference
     * (t(0.975, 23) / √24), enough to see a loss a user would feel; fewer only bound large losses.
     */
    GATE_PROFILES: z.coerce.number().int().min(0).max(500).default(24),
    /** Held-out prompts both answer greedily, scored by the live reward and read by the guards (0: off). */
    GATE_HELDOUT_ITEMS: z.coerce.number().int().min(0).max(1_000).default(48),
    /** Held-out prompts each checkpoint answers at once (the engine batches them); candidate and default at once. */
    GATE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /** Tokens each held-out answer may take; unset: the checkpoint's own budget (else 128). */
    GATE_MAX_TOKENS: z.preprocess(unset, z.coerce.number().int().min(1).max(4_096).optional()),
    /** The fewest items measured on both sides for a check to count; below it the check could not run. */
    GATE_MIN_ITEMS: z.coerce.number().int().min(2).max(1_000).default(20),
    /** Confidence level of every interval the gate reports. */
    GATE_CONFIDENCE: z.coerce.number().gt(0.5).lt(1).default(0.95),
    /** The length guard: the candidate's answers may be up to this many times longer or shorter. */
    GATE_MAX_LENGTH_RATIO: z.coerce.number().gt(1).max(100).default(2),
    /** `true`: only a candidate significantly better on the main metric passes (not merely not worse). */
    GATE_REQUIRE_BETTER: flag(false),
    /** Checks an operator turned off (comma-separated names); the report says so. Any other check that cannot run fails the gate. */
    GATE_CHECKS_OFF: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.enum(GATE_CHECK_NAMES))),
    GATE_TIMEOUT_SECONDS: seconds(1_800),
    /** Open an experiment for a candidate that passed, and the share of users it takes. */
    EXPERIMENT_ON_PASS: flag(true),
    EXPERIMENT_TRAFFIC_PERCENT: z.coerce.number().min(0).max(100).default(20),
  })
  .superRefine(requireKeyInProduction);

export type OrchestratorEnv = z.infer<typeof orchestratorEnv>;
