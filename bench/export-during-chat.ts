// Does a large export slow the chat? One gateway over a database of --rows synthetic labelled turns; --streams users
// chat over socket.io (each sends a message --think-ms after its last reply ended) while nothing else runs, then
// while a `turns` export of every row runs through the API until it has finished, then idle again. Prints the
// first-token latency of the three phases side by side, with the export's wall time, and writes
// bench/results/export-during-chat.json.
//
//   node -r @swc-node/register bench/export-during-chat.ts [--rows 1000000] [--streams 4] [--think-ms 1000]
//     [--idle-turns 200] [--format jsonl|csv|parquet] [--gateway-root DIR] [--out FILE]
//
// --gateway-root runs another checkout's gateway (e.g. `git worktree add` of an earlier commit) on the same data.
// Needs the local stack (PostgreSQL, Kafka): tools/stack/stack.sh up postgres kafka.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from 'pg';
import { formatTable, log, prepareDatabase, ROOT, startModel, writeBenchResult } from './bench-env';
import { seedConversations, seedUpTo } from './labelled-turns-seed';
import { summarize, type Summary } from './stats';
import { type BenchUser, createUsers, socketTurn } from './stream-clients';
import { startEcholoopGateway } from './turn-path-targets';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    streams: { type: 'string', default: '4' },
    'think-ms': { type: 'string', default: '1000' },
    'idle-turns': { type: 'string', default: '200' },
    format: { type: 'string', default: 'jsonl' },
    'gateway-root': { type: 'string', default: ROOT },
    out: { type: 'string', default: 'export-during-chat.json' },
  },
});
const ROWS = Number(values.rows);
const STREAMS = Number(values.streams);
const IDLE_TURNS = Number(values['idle-turns']);
const THINK_MS = Number(values['think-ms']);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every user turns, one after another with a pause to read, until `more` says stop; the first-token times, in ms. */
async function chatWhile(users: BenchUser[], phase: string, more: (done: number) => boolean) {
  const ttfts: number[] = [];
  let started = 0;
  await Promise.all(
    users.map(async (user) => {
      while (more(started)) {
        started += 1;
        ttfts.push((await socketTurn(user, `${phase}-${started}-${Math.random()}`)).ttftMs);
        await pause(THINK_MS);
      }
    }),
  );
  return ttfts;
}

/** Signs in as an analyst made for the run (the seed's users are plain users). */
async function analystToken(gatewayUrl: string, databaseUrl: string): Promise<string> {
  const email = `bench-analyst-${Date.now()}@example.com`;
  const post = async (route: string, body: unknown) =>
    (await (
      await fetch(`${gatewayUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json()) as Record<string, string>;
  const { userId } = await post('/v1/auth/register', {
    email,
    password: 'benchmark-password',
    displayName: 'Analyst',
  });
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`UPDATE users SET roles = '{analyst}' WHERE id = $1`, [userId]);
  await client.end();
  return (await post('/v1/auth/login', { email, password: 'benchmark-password' }))['accessToken'] ?? '';
}

async function main(): Promise<void> {
  const root = path.resolve(values['gateway-root']);
  const db = await prepareDatabase(root);
  const client = new Client({ connectionString: db.url });
  await client.connect();
  await seedConversations(client);
  await seedUpTo(client, ROWS, log);
  await client.query('VACUUM ANALYZE');
  await client.end();
  const model = await startModel(200, 16);
  const gateway = await startEcholoopGateway(root, db.url, model.url, 1);
  const rows: { phase: string; ms: Summary }[] = [];
  let exportRun: { rows: number; wallS: number; status: string } | undefined;
  try {
    const users = await createUsers(gateway.url, STREAMS, db.characterId);
    await chatWhile(users, 'warmup', (n) => n < STREAMS * 3);
    log(`idle: ${IDLE_TURNS} turns`);
    rows.push({ phase: 'idle before', ms: summarize(await chatWhile(users, 'idle', (n) => n < IDLE_TURNS)) });

    const token = await analystToken(gateway.url, db.url);
    const authorization = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const startedAt = performance.now();
    const started = (await (
      await fetch(`${gateway.url}/v1/exports`, {
        method: 'POST',
        headers: authorization,
        body: JSON.stringify({ kind: 'turns', format: values.format }),
      })
    ).json()) as { id: string };
    let status = 'queued';
    let exported = 0;
    const poll = (async () => {
      while (status === 'queued' || status === 'running') {
        await pause(1_000);
        const view = (await (
          await fetch(`${gateway.url}/v1/exports/${started.id}`, { headers: authorization })
        ).json()) as {
          status: string;
          rows: number | null;
          progress: { read: number; total: number | null };
        };
        status = view.status;
        exported = view.rows ?? 0;
        log(`export ${status}: ${view.progress.read}/${view.progress.total ?? '?'} turns`);
      }
    })();
    const during = await chatWhile(users, 'export', () => status === 'queued' || status === 'running');
    await poll;
    exportRun = { rows: exported, wallS: Math.round((performance.now() - startedAt) / 100) / 10, status };
    rows.push({ phase: `during a ${values.format} export of ${exported} rows`, ms: summarize(during) });
    // Idle again: the machine's own drift over the run, so the difference is the export's.
    rows.push({ phase: 'idle after', ms: summarize(await chatWhile(users, 'after', (n) => n < IDLE_TURNS)) });
    for (const user of users) user.socket.disconnect();
  } finally {
    await gateway.stop();
    model.stop();
    await db.drop();
  }
  const table =
    `\nChat first token, idle and during an export (ms; ${STREAMS} users chatting, ${THINK_MS} ms between a reply ` +
    `and the next message; export ${exportRun?.status}, ${exportRun?.rows} rows in ${exportRun?.wallS} s)\n` +
    formatTable(
      ['phase', 'turns', 'p50', 'p95', 'p99', 'max'],
      rows.map((r) => [
        r.phase,
        String(r.ms.n),
        String(r.ms.p50),
        String(r.ms.p95),
        String(r.ms.p99),
        String(r.ms.max),
      ]),
    );
  process.stdout.write(table);
  const out = writeBenchResult(
    values.out,
    {
      rows: ROWS,
      streams: STREAMS,
      format: values.format,
      gatewayRoot: root,
      export: exportRun,
      phases: rows,
    },
    table,
  );
  process.stdout.write(`wrote ${out}\n`);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(String(error));
    process.exit(1);
  },
);
