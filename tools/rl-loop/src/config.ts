import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ROOT } from './output';

const count = (fallback: number) => z.coerce.number().int().min(1).max(500).default(fallback);

const flags = z.object({
  users: count(20),
  steps: count(24),
  'routing-users': count(6),
  concurrency: count(2),
  'threshold-pairs': count(12),
  'min-pairs': count(6),
  // 20 users leave about 4 for validation: the orchestrator's minimum (16) would skip every refresh of so small a run.
  'min-validation-pairs': count(3),
  refreshes: count(1),
  out: z.string().min(1).optional(),
  judges: z.enum(['lexicon', 'local']).default('lexicon'),
});

export interface LoopConfig {
  users: number;
  routingUsers: number;
  concurrency: number;
  steps: number;
  thresholdPairs: number;
  thresholdPollSeconds: number;
  minPairs: number;
  minValidationPairs: number;
  /** Refreshes in a row: the threshold's, then more by hand, each after stopping the running experiment. */
  refreshes: number;
  modelUrl: string;
  rayUrl: string;
  baseModel: string;
  baseGguf: string;
  runId: string;
  workDir: string;
  reportPath: string;
  /** Who plays the simulated users and the reward judges: a lexicon stand-in, or the local model itself. */
  judges: 'lexicon' | 'local';
}

/** `./echoloop loop [--users 20] [--steps 24] [--routing-users 6] [--concurrency 2] [--refreshes 1] [--judges lexicon|local] [--out FILE]` */
export function loopConfig(argv: string[]): LoopConfig {
  const { values } = parseArgs({
    args: argv,
    options: {
      users: { type: 'string' },
      steps: { type: 'string' },
      'routing-users': { type: 'string' },
      concurrency: { type: 'string' },
      'threshold-pairs': { type: 'string' },
      'min-pairs': { type: 'string' },
      'min-validation-pairs': { type: 'string' },
      refreshes: { type: 'string' },
      out: { type: 'string' },
      judges: { type: 'string' },
    },
  });
  const f = flags.parse(values);
  const runId = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    users: f.users,
    routingUsers: f['routing-users'],
    concurrency: f.concurrency,
    steps: f.steps,
    thresholdPairs: f['threshold-pairs'],
    thresholdPollSeconds: 2,
    minPairs: f['min-pairs'],
    minValidationPairs: f['min-validation-pairs'],
    refreshes: f.refreshes,
    modelUrl: process.env['MODEL_BASE_URL'] ?? 'http://127.0.0.1:18000/v1',
    rayUrl: process.env['RAY_DASHBOARD_URL'] ?? 'http://127.0.0.1:8265',
    baseModel: 'smollm2-135m-instruct',
    baseGguf: path.join(ROOT, '.infra/models/smollm2-135m-instruct.Q4_1.gguf'),
    runId,
    workDir: path.join(ROOT, '.infra/rl-loop', runId),
    judges: f.judges,
    reportPath: f.out ? path.resolve(f.out) : path.join(ROOT, 'reports', `rl-loop-${runId}.json`),
  };
}
