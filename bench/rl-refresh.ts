// The RL refresh's cost on this machine: runs the whole loop (tools/rl-loop, as its own process: bench may not
// import tools) and tables each stage's and each refresh phase's wall time and peak RSS (training job, model server,
// Ray head, orchestrator). Prints the tables and writes bench/results/rl-refresh.json.
//
//   npm run bench:rl-refresh -- [--generations 1] [--users 12] [--steps 24] ...   (any flag of ./echoloop loop; needs the stack)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, writeBenchResult } from './bench-env';

const GROUPS = ['train', 'model', 'ray', 'orchestrator'] as const;

interface Row {
  stage: string;
  wallSeconds: number;
  peakRssMiB: Record<(typeof GROUPS)[number] | 'total', number>;
}

function table(title: string, rows: Row[]): string {
  return [
    `${title}`,
    `| stage | wall s | peak RSS MiB | ${GROUPS.join(' | ')} |`,
    `|---|---:|---:|${GROUPS.map(() => '---:').join('|')}|`,
    ...rows.map(
      (r) =>
        `| ${r.stage} | ${r.wallSeconds} | ${r.peakRssMiB.total} | ${GROUPS.map((g) => r.peakRssMiB[g]).join(' | ')} |`,
    ),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const out = path.join(tmpdir(), `rl-refresh-${Date.now()}.json`);
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'tools/rl-loop/src/main.ts', ...process.argv.slice(2), '--out', out],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`the loop exited with ${code}`);
  const loop = JSON.parse(readFileSync(out, 'utf8'));
  // The stack, the apps and the training job share the machine the result names.
  const result = {
    args: process.argv.slice(2),
    generations: loop.generations,
    refreshSeconds: loop.stages
      .filter((s: Row) => s.stage.endsWith(' refresh'))
      .map((s: Row) => s.wallSeconds),
    stages: loop.stages,
    refreshPhases: loop.refreshPhases,
  };
  const tables = `\n${table('Loop stages', loop.stages)}\n${table('Refresh phases', loop.refreshPhases)}`;
  process.stdout.write(tables);
  process.stdout.write(`written to ${writeBenchResult('rl-refresh.json', result, tables)}\n`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
