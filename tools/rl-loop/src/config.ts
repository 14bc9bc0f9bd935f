import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ROOT } from './output';

const count = (fallback: number, min = 1) => z.coerce.number().int().min(min).max(500).default(fallback);

const flags = z.object({
  generations: count(1),
  users: count(12),
  turns: count(3),
  steps: count(24),
  'routing-users': count(6),
  concurrency: count(2),
  'threshold-pairs': count(12),
  'min-pairs': count(6),
  // 12 users leave about 3 for validation: the orchestrator's minimum (16) would skip every refresh of so small a run.
  'min-validation-pairs': count(3),
  'eval-profiles': count(8, 2),
  'eval-turns': count(2),
  'gate-profiles': count(0, 0),
  out: z.string().min(1).optional(),
});
const FLAGS = Object.keys(flags.shape);

export interface LoopConfig {
  /** Refreshes in a row, each from the checkpoint the last one left as default. */
  generations: number;
  users: number;
  /** The most replies a simulated user reads before the loop ends its conversation. */
  turns: number;
  routingUsers: number;
  concurrency: number;
  steps: number;
  thresholdPairs: number;
  thresholdPollSeconds: number;
  minPairs: number;
  minValidationPairs: number;
  /** The independent evaluation's benchmark profiles, and the turns each conversation gets. */
  evalProfiles: number;
  evalTurns: number;
  /** Sentient profiles the gate plays (0: the check is turned off by configuration, and the report says so). */
  gateProfiles: number;
  modelUrl: string;
  rayUrl: string;
  baseModel: string;
  baseGguf: string;
  runId: string;
  workDir: string;
  reportPath: string;
}

/** `./echoloop loop [--generations 1] [--users 12] [--turns 3] [--steps 24] ... [--out FILE]` (flags above). */
export function loopConfig(argv: string[]): LoopConfig {
  const { values } = parseArgs({
    args: argv,
    options: Object.fromEntries(FLAGS.map((name) => [name, { type: 'string' as const }])),
  });
  const f = flags.parse(values);
  const runId = new Date().toISOString().replace(/[:.]/g, '-');
  return {
    generations: f.generations,
    users: f.users,
    turns: f.turns,
    routingUsers: f['routing-users'],
    concurrency: f.concurrency,
    steps: f.steps,
    thresholdPairs: f['threshold-pairs'],
    thresholdPollSeconds: 2,
    minPairs: f['min-pairs'],
    minValidationPairs: f['min-validation-pairs'],
    evalProfiles: f['eval-profiles'],
    evalTurns: f['eval-turns'],
    gateProfiles: f['gate-profiles'],
    modelUrl: process.env['MODEL_BASE_URL'] ?? 'http://127.0.0.1:18000/v1',
    rayUrl: process.env['RAY_DASHBOARD_URL'] ?? 'http://127.0.0.1:8265',
    baseModel: 'smollm2-135m-instruct',
    baseGguf: path.join(ROOT, '.infra/models/smollm2-135m-instruct.Q4_1.gguf'),
    runId,
    workDir: path.join(ROOT, '.infra/rl-loop', runId),
    reportPath: f.out ? path.resolve(f.out) : path.join(ROOT, 'reports', `rl-loop-${runId}.json`),
  };
}
