// The reward labeller on the real Kafka and PostgreSQL with an instant judge (the vLLM-compatible test server,
// unpaced): (1) ingest throughput on a backlog of turns, (2) turn-to-label lag at a steady publish rate.
// "Labelled" here means the turn's empathy and humanlike labels are stored (the live emotion waits, by design,
// for the user's next message). Prints a table and writes bench/results/labeller-throughput.json.
//
// CPU during the ingest is given for the labeller, for this process (the test judge serving every judge call)
// and for the whole machine (the rest is PostgreSQL, Kafka and anything else running).
//
//   npm run bench:labeller -- [--backlog 20000] [--rate 100] [--seconds 20] [--sampling 1] [--judge-batch 32]
//     [--history 0]
//   (needs tools/stack/stack.sh up postgres kafka)
import { chatTurnCompletedV1, createEvent } from '@echoloop/contracts';
import { dataSourceOptions } from '@echoloop/persistence';
import { encodeEvent, EventPublisher } from '@echoloop/platform';
import {
  createTestDatabase,
  freshLabellerGroup,
  replyByRules,
  startApp,
  startFakeVllm,
  testKafka,
  uniqueName,
  waitFor,
} from '@echoloop/testing';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { DataSource } from 'typeorm';
import { cpuSeconds, machineCpuSeconds, summarize } from './stats';
import { writeBenchResult } from './bench-env';

const { values } = parseArgs({
  options: {
    backlog: { type: 'string', default: '20000' },
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '20' },
    // The share of turns the judges see (0: the Kafka and PostgreSQL path alone, every judged label skipped).
    sampling: { type: 'string', default: '1' },
    // JUDGE_BATCH_SIZE: judge calls per request to /chat/completions/batch (1: a request per call).
    'judge-batch': { type: 'string', default: '32' },
    // Messages of dialogue before each turn, carried by its event as the gateway sends them (it caps them at 60).
    history: { type: 'string', default: '0' },
  },
});
const BACKLOG = Number(values.backlog);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const SAMPLING = Number(values.sampling);
const HISTORY = Array.from({ length: Number(values.history) }, (_, i) =>
  i % 2 === 0
    ? { role: 'user' as const, content: `Message ${i}: work has been a lot lately and I am tired of it.` }
    : { role: 'assistant' as const, content: `Reply ${i}: that sounds draining. What weighs on you most?` },
);

type Turn = ReturnType<typeof turnPayload>;

/** Undone in reverse order when the bench ends, however it ends (a labeller that fails to start included). */
const cleanup: (() => Promise<unknown>)[] = [];

async function main(): Promise<void> {
  const database = await createTestDatabase('bench_labeller');
  cleanup.push(() => database.drop());
  const db = await new DataSource(dataSourceOptions({ url: database.url })).initialize();
  cleanup.push(() => db.destroy());
  await db.runMigrations();
  const judge = await startFakeVllm({
    model: 'judge',
    reply: replyByRules([
      { when: { systemIncludes: 'how empathetic' }, reply: 'Fine.\nVerdict: 4' },
      { when: { systemIncludes: 'like a machine' }, reply: 'Fine.\nVerdict: humanlike' },
      { when: { systemIncludes: 'emotional state' }, reply: 'Fine.\nChange: +1' },
    ]),
  });
  cleanup.push(() => judge.close());
  const labeller = await startApp('reward-labeller', {
    DATABASE_URL: database.url,
    LABELLER_GROUP_ID: await freshLabellerGroup('bench'),
    JUDGE_BASE_URL: judge.url,
    JUDGE_MODEL: 'judge',
    JUDGE_CONCURRENCY: '64',
    JUDGE_BATCH_SIZE: values['judge-batch'],
    ...(SAMPLING !== 1 && {
      REWARD_CONFIG: JSON.stringify({
        version: `bench-sampling-${SAMPLING}`,
        sampling: { empathy: SAMPLING, humanlike: SAMPLING, live_emotion: SAMPLING },
      }),
    }),
  });
  cleanup.push(() => labeller.stop());
  const pid = Number(
    execFileSync('pgrep', ['-f', '-n', 'apps/reward-labeller/src/main.ts']).toString().trim(),
  );
  const publisher = new EventPublisher(testKafka('bench-labeller'));
  cleanup.push(() => publisher.disconnect());
  const seed = await seedUser(db);
  // The new group starts at the topics' ends (freshLabellerGroup): wait until it has joined and reads no lag.
  await waitFor(async () => (await lagOf(labeller.url)) === 0, {
    timeoutMs: 300_000,
    what: 'the labeller to catch up',
  });

  const backlog = await createTurns(db, seed, BACKLOG);
  const cpuBefore = pid ? cpuSeconds(pid) : 0;
  const benchCpuBefore = process.cpuUsage();
  const machineCpuBefore = machineCpuSeconds();
  const started = performance.now();
  // Sends of up to 500 turns, kept well under the broker's 1 MB request limit when turns carry a long history.
  const perSend = Math.max(1, Math.min(500, Math.floor(400_000 / JSON.stringify(backlog[0]).length)));
  for (let i = 0; i < backlog.length; i += perSend) await publish(publisher, backlog.slice(i, i + perSend));
  await waitFor(async () => (await labelledCount(db)) >= BACKLOG, {
    timeoutMs: 600_000,
    intervalMs: 200,
    what: 'the backlog to be labelled',
  });
  const seconds = (performance.now() - started) / 1_000;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const ingest = {
    turns: BACKLOG,
    seconds: Math.round(seconds * 10) / 10,
    turnsPerSecond: Math.round(BACKLOG / seconds),
    labellerCpuSeconds: pid ? Math.round((cpuSeconds(pid) - cpuBefore) * 10) / 10 : null,
    judgeAndBenchCpuSeconds: Math.round((benchCpu.user + benchCpu.system) / 100_000) / 10,
    machineCpuSeconds: Math.round((machineCpuSeconds() - machineCpuBefore) * 10) / 10,
  };

  const steady = await createTurns(db, seed, RATE * SECONDS);
  const sentAt = new Map<string, number>();
  const tick = 100;
  const perTick = Math.max(1, Math.round((RATE * tick) / 1_000));
  const t0 = Date.now();
  for (let i = 0; i < steady.length; i += perTick) {
    const due = t0 + (i / perTick) * tick;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    const slice = steady.slice(i, i + perTick);
    const now = Date.now();
    for (const turn of slice) sentAt.set(turn.turnId, now);
    await publish(publisher, slice);
  }
  await waitFor(async () => (await labelledCount(db)) >= BACKLOG + steady.length, {
    timeoutMs: 300_000,
    intervalMs: 200,
    what: 'the steady turns to be labelled',
  });
  const rows = (await db.query(
    `SELECT turn_id, extract(epoch FROM max(created_at)) * 1000 AS at FROM reward_labels
     WHERE turn_id = ANY($1) AND component IN ('empathy', 'humanlike') GROUP BY turn_id`,
    [steady.map((t) => t.turnId)],
  )) as { turn_id: string; at: string }[];
  const lags = rows.map((r) => Number(r.at) - (sentAt.get(r.turn_id) ?? Number(r.at)));
  const lag = { rate: RATE, seconds: SECONDS, ms: summarize(lags) };

  const report = {
    date: new Date().toISOString(),
    judge: 'vLLM-compatible test server, unpaced',
    judgeBatchSize: Number(values['judge-batch']),
    sampling: SAMPLING,
    historyMessages: HISTORY.length,
    ingest,
    lag,
  };
  const table = [
    '| measure | value |',
    '|---|---|',
    `| backlog ingest (judge batch ${values['judge-batch']}, sampling ${SAMPLING}, history ${HISTORY.length}) | ${ingest.turns} turns in ${ingest.seconds} s = ${ingest.turnsPerSecond} turns/s |`,
    `| CPU during ingest: labeller / test judge + bench / whole machine | ${ingest.labellerCpuSeconds ?? 'n/a'} s / ${ingest.judgeAndBenchCpuSeconds} s / ${ingest.machineCpuSeconds} s (${cpus().length} cores) |`,
    `| turn → label lag at ${RATE} turns/s | p50 ${lag.ms.p50} ms, p99 ${lag.ms.p99} ms (n=${lag.ms.n}) |`,
    '',
  ].join('\n');
  process.stdout.write(table);
  writeBenchResult('labeller-throughput.json', report, table);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

async function seedUser(db: DataSource) {
  const [{ id: userId }] = (await db.query(
    `INSERT INTO users (email, display_name) VALUES ($1, 'Bench') RETURNING id`,
    [`${uniqueName('bench')}@example.com`],
  )) as [{ id: string }];
  const [{ id: characterId }] = (await db.query(
    `INSERT INTO characters (name, spec, card, created_by) VALUES ('Mira', 'chara_card_v2', '{}', $1) RETURNING id`,
    [userId],
  )) as [{ id: string }];
  return { userId, characterId };
}

/** Turns in conversations of 4, written to the chat tables in bulk as the gateway would have. */
async function createTurns(db: DataSource, seed: { userId: string; characterId: string }, count: number) {
  const turns: Turn[] = [];
  const base = Date.now();
  for (let i = 0; i < count; i += 4) {
    const conversationId = randomUUID();
    await db.query(`INSERT INTO conversations (id, user_id, character_id) VALUES ($1, $2, $3)`, [
      conversationId,
      seed.userId,
      seed.characterId,
    ]);
    for (let t = 0; t < 4 && i + t < count; t++)
      turns.push(turnPayload(seed, conversationId, base + (i + t) * 10));
  }
  const messages = turns.flatMap((t) => [
    [t.userMessage.id, t.conversationId, 'user', t.userMessage.content, null, t.userMessage.createdAt],
    [
      t.turnId,
      t.conversationId,
      'assistant',
      t.assistantMessage.content,
      t.userMessage.id,
      t.assistantMessage.createdAt,
    ],
  ]);
  for (let i = 0; i < messages.length; i += 1_000) {
    const chunk = messages.slice(i, i + 1_000);
    const params = chunk.flat();
    const rows = chunk.map(
      (_, r) => `($${r * 6 + 1}, $${r * 6 + 2}, $${r * 6 + 3}, $${r * 6 + 4}, $${r * 6 + 5}, $${r * 6 + 6})`,
    );
    await db.query(
      `INSERT INTO messages (id, conversation_id, role, content, parent_id, created_at) VALUES ${rows.join(', ')}`,
      params,
    );
  }
  return turns;
}

function turnPayload(seed: { userId: string; characterId: string }, conversationId: string, at: number) {
  const userMessageId = randomUUID();
  const turnId = randomUUID();
  return {
    turnId,
    conversationId,
    userId: seed.userId,
    characterId: seed.characterId,
    checkpointId: 'base',
    experimentId: null,
    armId: null,
    userMessage: {
      id: userMessageId,
      content: 'I had a long day at work.',
      createdAt: new Date(at).toISOString(),
    },
    assistantMessage: {
      id: turnId,
      content: 'That sounds tiring. What happened?',
      createdAt: new Date(at + 5).toISOString(),
      reasoning: null,
      finishReason: 'stop' as const,
      usage: { promptTokens: 20, completionTokens: 8 },
    },
    history: HISTORY,
    personaSnapshot: {},
    timings: { ttftMs: 50, totalMs: 200 },
    safety: { flagged: false, categories: [] },
  };
}

async function publish(publisher: EventPublisher, turns: Turn[]): Promise<void> {
  await publisher.send(
    chatTurnCompletedV1.topic,
    turns.map((t) =>
      encodeEvent(chatTurnCompletedV1, createEvent(chatTurnCompletedV1, t, 'bench'), t.conversationId),
    ),
  );
}

async function labelledCount(db: DataSource): Promise<number> {
  const [row] = (await db.query(
    `SELECT count(*)::int AS n FROM reward_labels WHERE component = 'humanlike'`,
  )) as { n: number }[];
  return row?.n ?? 0;
}

async function lagOf(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const lines = text.split('\n').filter((l) => l.startsWith('labeller_consumer_lag_messages{'));
  if (lines.length === 0) return undefined;
  return lines.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const undo of cleanup.reverse()) await undo().catch(() => undefined);
  });
