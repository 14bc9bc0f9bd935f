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

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    format: { type: 'string', default: 'jsonl' },
    child: { type: 'string' },
  },
});
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** Adds turns until the database holds `target`, in batches of 50k, each with its messages and labels. */
async function seedUpTo(client: Client, target: number): Promise<void> {
  const [{ n }] = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM reward_turns')).rows as [
    { n: number },
  ];
  for (let from = n; from < target; from += 50_000) {
    const count = Math.min(50_000, target - from);
    await client.query(
      `WITH conversation AS (
         SELECT array_agg(id ORDER BY id) AS ids, array_agg(user_id ORDER BY id) AS users FROM conversations
       ), turns AS (
         SELECT i, c.ids[1 + i % cardinality(c.ids)] AS conversation_id, c.users[1 + i % cardinality(c.ids)] AS user_id,
                gen_random_uuid() AS user_message_id, gen_random_uuid() AS reply_id,
                now() - make_interval(secs => $1 - i) AS at
           FROM generate_series($2::int, $2::int + $3::int - 1) AS i, conversation c
       ), user_messages AS (
         INSERT INTO messages (id, conversation_id, role, content, created_at)
         SELECT user_message_id, conversation_id, 'user', 'message ' || i || ' call me at +44 20 7946 0958', at
           FROM turns
       ), replies AS (
         INSERT INTO messages (id, conversation_id, role, content, parent_id, created_at)
         SELECT reply_id, conversation_id, 'assistant', 'A warm, careful reply number ' || i, user_message_id, at
           FROM turns
       ), labelled AS (
         INSERT INTO reward_turns (turn_id, conversation_id, user_id, user_message_id, checkpoint_id, turn,
                                   replied_at, signals, labelled_versions)
         SELECT reply_id, conversation_id, user_id, user_message_id, 'base',
                jsonb_build_object(
                  'characterId', '00000000-0000-4000-8000-000000000001',
                  'history', (SELECT jsonb_agg(jsonb_build_object('role', CASE WHEN k % 2 = 0 THEN 'user' ELSE 'assistant' END,
                                'content', 'earlier message ' || k || ' of a conversation about a long day at work'))
                              FROM generate_series(1, 10) k),
                  'userMessage', jsonb_build_object('id', user_message_id, 'content', 'message ' || i),
                  'assistantMessage', jsonb_build_object('id', reply_id, 'content', 'A warm, careful reply number ' || i),
                  'personaSnapshot', jsonb_build_object('schemaVersion', 1, 'fields', '{}'::jsonb)),
                at, jsonb_build_object('thumbs', CASE WHEN i % 7 = 0 THEN 1 END), '{labeller-v1}'
           FROM turns
         RETURNING turn_id
       )
       INSERT INTO reward_labels (turn_id, component, labeller_version, status, value)
       SELECT turn_id, component, 'labeller-v1', 'labelled', 0.5
         FROM labelled CROSS JOIN unnest(ARRAY['empathy', 'humanlike', 'live_emotion', 'implicit']) AS component`,
      [target, from, count],
    );
    log(`seeded ${from + count}/${target} turns`);
  }
}

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
    await client.query(`
      INSERT INTO users (email, display_name, training_consent)
      SELECT 'bench-' || i || '@example.com', 'Bench ' || i, true FROM generate_series(1, 1000) i;
      INSERT INTO characters (name, spec, card, created_by)
      SELECT 'Mira', 'chara_card_v2', '{}', id FROM users LIMIT 1;
      INSERT INTO conversations (user_id, character_id, title)
      SELECT u.id, (SELECT id FROM characters LIMIT 1), 'bench' FROM users u;`);
    for (const size of sizes) {
      await seedUpTo(client, size);
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
