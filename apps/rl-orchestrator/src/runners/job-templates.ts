import type { RlTemplateName } from '@echoloop/vocabulary';
import type { DatasetKind } from '@echoloop/datasets';
import { z } from 'zod';

/** What a refresh may tune per job; the defaults come from the environment. */
export const hyperparametersSchema = z
  .object({
    /** A ceiling on steps; epochs set them from the data. */
    maxSteps: z.number().int().min(1).max(100_000).optional(),
    epochs: z.number().gt(0).max(100).optional(),
    /**
     * Steps between validations (default: twice an epoch). A run shorter than an epoch then validates only its last
     * step; more often gives the selection steps inside the trust region to choose from.
     */
    evalEvery: z.number().int().min(1).max(100_000).optional(),
    learningRate: z.number().gt(0).max(1).optional(),
    beta: z.number().gt(0).max(10).optional(),
    loraR: z.number().int().min(1).max(256).optional(),
    /** Pairs per step (DPO), prompts per step (GRPO). */
    batchSize: z.number().int().min(1).max(256).optional(),
    /** GRPO: replies sampled per prompt, compared within their group. */
    numGenerations: z.number().int().min(2).max(64).optional(),
    /** GRPO: tokens per sampled reply. */
    maxCompletionLength: z.number().int().min(1).max(4_096).optional(),
    /** GRPO: replies in each simulated conversation, the scored one first; the policy answers the rest (RLVER). */
    sentientTurns: z.number().int().min(1).max(45).optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
  })
  .strict();
export type Hyperparameters = z.infer<typeof hyperparametersSchema>;

export interface TemplateContext {
  python: string;
  snapshotDir: string;
  outputDir: string;
  baseGguf: string;
  datasetId: string;
  /** The parent checkpoint's adapter, trained further; none: a fresh adapter on the base. */
  parentAdapter: string | null;
  /** Sentient profiles whose training pool's openers the simulator plays (the GRPO templates); none: chats only. */
  profilesFile: string | null;
  /** CPU threads; unset: the job's own default (every core). */
  threads: number | undefined;
  hyperparameters: Hyperparameters & { maxSteps: number; epochs: number; patience: number; maxKl: number };
}

export interface JobTemplate {
  datasetKind: DatasetKind;
  /** Whether a successful job leaves an adapter to serve (a rendered-only template does not). */
  producesAdapter: boolean;
  /**
   * Whether its rewards come from the services while it runs: the labeller, and the eval-runner's simulator when
   * profiles are given (the job is given their addresses and a key).
   */
  rewardedLive: boolean;
  argv(context: TemplateContext): string[];
}

const optional = (flag: string, value: number | undefined) =>
  value === undefined ? [] : [flag, String(value)];

/** What the trl templates share: the snapshot, the base and its parent, the step budget and the trust region. */
const trlArgv = (module: string, c: TemplateContext) => [
  c.python,
  '-m',
  module,
  '--snapshot',
  c.snapshotDir,
  '--output',
  c.outputDir,
  '--base-gguf',
  c.baseGguf,
  '--dataset-id',
  c.datasetId,
  '--max-steps',
  String(c.hyperparameters.maxSteps),
  '--epochs',
  String(c.hyperparameters.epochs),
  '--patience',
  String(c.hyperparameters.patience),
  '--max-kl',
  String(c.hyperparameters.maxKl),
  ...(c.parentAdapter ? ['--parent-adapter', c.parentAdapter] : []),
  ...optional('--threads', c.threads),
  ...optional('--learning-rate', c.hyperparameters.learningRate),
  ...optional('--beta', c.hyperparameters.beta),
  ...optional('--lora-r', c.hyperparameters.loraR),
  ...optional('--batch-size', c.hyperparameters.batchSize),
  ...optional('--eval-every', c.hyperparameters.evalEvery),
  ...optional('--seed', c.hyperparameters.seed),
];

/** The Python job templates (python/echoloop_train, python/echoloop_verl), by name. */
export const JOB_TEMPLATES: Record<RlTemplateName, JobTemplate> = {
  'trl-dpo': {
    datasetKind: 'preferences',
    producesAdapter: true,
    rewardedLive: false,
    argv: (c) => trlArgv('echoloop_train.trl_dpo', c),
  },
  'trl-grpo': {
    datasetKind: 'verl',
    producesAdapter: true,
    rewardedLive: true,
    argv: (c) => [
      ...trlArgv('echoloop_train.trl_grpo', c),
      ...optional('--num-generations', c.hyperparameters.numGenerations),
      ...optional('--max-completion-length', c.hyperparameters.maxCompletionLength),
      ...(c.profilesFile
        ? ['--profiles', c.profilesFile, ...optional('--sentient-turns', c.hyperparameters.sentientTurns)]
        : []),
    ],
  },
  'verl-grpo': {
    datasetKind: 'verl',
    producesAdapter: false,
    rewardedLive: false,
    argv: (c) => [
      c.python,
      '-m',
      'echoloop_verl.grpo_template',
      '--snapshot',
      c.snapshotDir,
      '--output',
      c.outputDir,
      '--dataset-id',
      c.datasetId,
      '--max-steps',
      String(c.hyperparameters.maxSteps),
      // The training pool's openers become rows played by the sentient user (its interaction, multi-turn).
      ...(c.profilesFile ? ['--profiles', c.profilesFile] : []),
    ],
  },
};

export type TemplateName = keyof typeof JOB_TEMPLATES;
