// What a dataset export costs as it grows: synthetic labelled turns (10 messages of context each, four labels) are
// seeded into a fresh database up to each size, then the `turns` export runs in its own process, so its peak RSS is
// its own. Memory must stay flat from 10k to 1M rows (rows stream through a cursor). Prints a table and writes
// bench/results/dataset-export.json.
//
//   node -r @swc-node/register bench/dataset-export.ts [--sizes 10000,100000,1000000] [--format jsonl|csv]
//
// Needs the local stack's PostgreSQL: tools/stack/stack.sh up postgres.
import { exportDataset } from '@echoloop/datasets';
import { createTestDatabase } from '@echoloop/testing';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '@echoloop/persistence';
import { round } from './stats';
import { ROOT, writeBenchResult } from './bench-env';
import { seedConversations, seedUpTo } from './labelled-turns-seed';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    format: { type: 'string', default: 'jsonl' },
    child: { type: 'string' },
  },
});
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** The child: one export, then its wall time and peak RSS as JSON. */
async function child(url: string): Promise<void> {
  const db = await new DataSource(dataSourceOptions({ url, applicationName: 'bench-export' })).initialize();
  const out = path.join(tmpdir(), `echoloop-bench-export-${process.pid}`);
  const started = performance.now();
  const { manifest } = await exportDataset({
    db,
    kind: 'turns',
    format: values.format as 'jsonl' | 'csv',
    filters: {},
    outDir: out,
    privacy: { pseudonymKey: 'bench-pseudonym-key-0123456789abcdef' },
    consentDefault: true,
  });
  const wallMs = performance.now() - started;
  await db.destroy();
  rmSync(out, { recursive: true, force: true });
  process.stdout.write(
    `${JSON.stringify({ rows: manifest.rows, bytes: manifest.files[0]?.bytes ?? 0, wallMs, maxRssMiB: process.resourceUsage().maxRSS / 1024 })}\n`,
  );
}

async function main(): Promise<void> {
  const sizes = values.sizes.split(',').map(Number);
  const database = await createTestDatabase('bench_export');
  const env = { ...process.env, DATABASE_URL: database.url, SWC_NODE_PROJECT: 'tsconfig.base.json' };
  execFileSync(process.execPath, ['tools/typeorm-cli.cjs', 'migration:run'], {
    cwd: ROOT,
    env,
    stdio: 'ignore',
  });
  const client = new Client({ connectionString: database.url });
  await client.connect();
  const results: { rows: number; wallS: number; rowsPerS: number; maxRssMiB: number; fileMiB: number }[] = [];
  try {
    await seedConversations(client);
    for (const size of sizes) {
      await seedUpTo(client, size, log);
      await client.query('VACUUM ANALYZE');
      log(`exporting ${size} turns as ${values.format}`);
      const output = execFileSync(
        process.execPath,
        [
          '-r',
          '@swc-node/register',
          'bench/dataset-export.ts',
          '--child',
          database.url,
          '--format',
          values.format,
        ],
        { cwd: ROOT, env: { ...process.env, SWC_NODE_PROJECT: 'tsconfig.base.json' } },
      ).toString();
      const run = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
        rows: number;
        bytes: number;
        wallMs: number;
        maxRssMiB: number;
      };
      results.push({
        rows: run.rows,
        wallS: round(run.wallMs / 1_000),
        rowsPerS: Math.round(run.rows / (run.wallMs / 1_000)),
        maxRssMiB: round(run.maxRssMiB),
        fileMiB: round(run.bytes / 1_048_576),
      });
    }
  } finally {
    await client.end();
    await database.drop();
  }
  const lines = [
    `\nturns export (${values.format}), one process per size`,
    '| rows | wall s | rows/s | peak RSS MiB | file MiB |',
    '|---|---|---|---|---|',
    ...results.map((r) => `| ${r.rows} | ${r.wallS} | ${r.rowsPerS} | ${r.maxRssMiB} | ${r.fileMiB} |`),
    '',
  ];
  process.stdout.write(lines.join('\n'));
  const result = { bench: 'dataset-export', format: values.format, results };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  writeBenchResult('dataset-export.json', result, lines.join('\n'));
}

void (values.child ? child(values.child) : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
