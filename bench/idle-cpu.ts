// What an idle chat gateway costs: CPU time of its process (user + system, from /proc) and the transactions it
// commits in its database while no one uses it, over a fixed window after a warm-up. Prints one JSON line.
//
//   node -r @swc-node/register bench/idle-cpu.ts [--seconds 60] [--warmup 10]
//
// Needs the local stack's PostgreSQL and Kafka: tools/stack/stack.sh up postgres kafka. Linux only (/proc).
import { createTestDatabase, startApp } from '@echoloop/testing';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { formatTable, writeBenchResult } from './bench-env';

const ROOT = path.resolve(__dirname, '..');
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, warmup: { type: 'string', default: '10' } },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The gateway's process: the only node child of this one (startApp spawns it). */
function childPid(): number {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)]).toString();
  const pids = out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm === 'node')
    .map(([pid]) => Number(pid));
  if (pids.length !== 1) throw new Error(`expected one child process, found ${pids.join(', ')}`);
  return pids[0]!;
}

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000) / Number(execFileSync('getconf', ['CLK_TCK']).toString());
}

async function main(): Promise<void> {
  const db = await createTestDatabase('bench_idle');
  execFileSync(process.execPath, ['tools/typeorm-cli.cjs', 'migration:run'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: db.url, SWC_NODE_PROJECT: 'tsconfig.base.json' },
    stdio: 'ignore',
  });
  const gateway = await startApp('chat-gateway', { DATABASE_URL: db.url });
  const stats = new Client({ connectionString: db.url });
  await stats.connect();
  const commits = async () => {
    await stats.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await stats.query<{ n: string }>(
      'SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return Number(rows[0]?.n);
  };
  try {
    const pid = childPid();
    await sleep(Number(values.warmup) * 1_000);
    const [cpu0, tx0, t0] = [cpuMs(pid), await commits(), performance.now()];
    await sleep(Number(values.seconds) * 1_000);
    const [cpu1, tx1, t1] = [cpuMs(pid), await commits(), performance.now()];
    const seconds = (t1 - t0) / 1_000;
    const result = {
      seconds: Math.round(seconds),
      cpuMs: Math.round(cpu1 - cpu0),
      cpuPercent: Math.round(((cpu1 - cpu0) / 10 / seconds) * 100) / 100,
      // Includes this script's two stats reads; PostgreSQL reports its counters with a delay of up to ~1 s.
      dbCommitsPerSecond: Math.round(((tx1 - tx0) / seconds) * 10) / 10,
    };
    console.log(JSON.stringify(result));
    const table = formatTable(
      ['idle gateway over s', 'CPU ms', 'CPU % of a core', 'database commits/s'],
      [[result.seconds, result.cpuMs, result.cpuPercent, result.dbCommitsPerSecond].map(String)],
    );
    process.stdout.write(table);
    writeBenchResult('idle-cpu.json', result, table);
  } finally {
    await stats.end();
    await gateway.stop();
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
