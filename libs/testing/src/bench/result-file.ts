import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RESULTS_DIR, writeBenchmarksPage } from './benchmarks-page';

/**
 * Writes a measurement's latest result where it is committed: first the command that reproduces it (this process's
 * own arguments, the script relative to `root`), the date and the machine, then the result. A result may carry the
 * `table` its benchmark printed. A result committed under `bench/results/` also rewrites `docs/benchmarks.md`.
 */
export function writeResultFile(out: string, root: string, result: object): void {
  const script = path.relative(root, process.argv[1] ?? '');
  const command = ['node -r @swc-node/register', script, ...process.argv.slice(2)].join(' ');
  const cpus = os.cpus();
  const machine = { cpus: cpus.length, cpu: cpus[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30) };
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify({ command, date: new Date().toISOString(), machine, ...result }, null, 2)}\n`,
  );
  if (path.dirname(path.resolve(out)) === path.resolve(root, RESULTS_DIR)) writeBenchmarksPage(root);
}
