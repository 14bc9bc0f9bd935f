import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT, say } from './output';

const run = promisify(execFile);
const bash = (script: string, ...args: string[]) =>
  run('bash', [path.join(ROOT, script), ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });

export interface Stack {
  python: string;
  baseGguf: string;
}

/** Every stack component up (Ray included), the training venv built, the base model's GGUF on disk. */
export async function ensureStack(baseGguf: string): Promise<Stack> {
  say('stack', 'tools/stack/stack.sh up (PostgreSQL, Kafka, vLLM, Ray)');
  const { stdout } = await bash('tools/stack/stack.sh', 'up');
  for (const line of stdout.split('\n').filter((l) => /\b(up|down)\b/.test(l))) say('stack', line.trim());
  // Ray may not be one of stack.sh's components yet: its own script is idempotent.
  const ray = await bash('tools/stack/ray.sh', 'status').catch(() => undefined);
  if (!ray) {
    say('stack', 'starting the Ray head (tools/stack/ray.sh up)');
    await bash('tools/stack/ray.sh', 'up');
    say('stack', (await bash('tools/stack/ray.sh', 'status')).stdout.trim());
  }
  say('stack', 'training venv (tools/python/venv.sh train, built once)');
  const python = (await bash('tools/python/venv.sh', 'train')).stdout.trim();
  say('stack', `training python: ${python}`);
  if (!existsSync(baseGguf)) throw new Error(`the base model's GGUF is missing: ${baseGguf}`);
  say('stack', `base GGUF: ${baseGguf}`);
  return { python, baseGguf };
}

/**
 * `up`'s apps, when they run, would label, review and reconcile the loop's data beside the loop's own apps (which
 * run with the loop's thresholds): they are stopped for the run, and the returned function starts them again, so
 * the web app shows what the loop left.
 */
export async function pauseUpApps(): Promise<() => Promise<void>> {
  const status = await bash('tools/stack/apps.sh', 'status').then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? '',
  );
  if (!/^\S+\s+up\b/m.test(status)) return async () => undefined;
  say(
    'stack',
    "stopping `up`'s apps while the loop runs its own (tools/stack/apps.sh down); they start again after",
  );
  await bash('tools/stack/apps.sh', 'down');
  return async () => {
    say(
      'stack',
      "starting `up`'s apps again (tools/stack/apps.sh up): the web app shows the loop's jobs and users",
    );
    await bash('tools/stack/apps.sh', 'up');
  };
}
