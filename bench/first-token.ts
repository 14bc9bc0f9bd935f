// One user's first token, step by step: the gateway's answer to an invalid message and to a stop (socket.io's round
// trip plus the handler), then turns of one conversation over socket.io, each paired with a direct request to the
// model server just before it, at a model first-token delay of 0 and of 150 ms. The overhead of a turn is its
// time to first token minus its pair's: pairing cancels the model server's own variation, which at one stream is
// larger than what is measured. Short replies (4 tokens), so the turns are many. The process's first turns are a row
// of their own. Prints a table and writes bench/results/first-token.json, with every sample in the order measured.
//
// Given --gateway-root more than once (checkouts to compare, e.g. `git worktree add` of an earlier commit), it runs
// each gateway with a database and a user of its own, and takes their turns alternately, so that they share the
// machine's moments: this machine's speed drifts by more than a change of 0.5 ms from one run to the next. It then
// also prints the median of the paired differences between the first gateway and each other one.
//
//   node -r @swc-node/register bench/first-token.ts [--turns 150] [--events 100] [--warmup 5]
//     [--gateway-root DIR ...] [--out FILE]
//
// Needs the local stack (PostgreSQL, Kafka): tools/stack/stack.sh up postgres kafka.
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  type BenchDatabase,
  type BenchProcess,
  formatTable,
  log,
  prepareDatabase,
  ROOT,
  startModel,
  writeBenchResult,
} from './bench-env';
import { summarize, type Summary } from './stats';
import { type BenchUser, createUsers, openAiStream, socketTurn } from './stream-clients';
import { startEcholoopGateway } from './turn-path-targets';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '150' },
    events: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '5' },
    'gateway-root': { type: 'string', multiple: true, default: [ROOT] },
    out: { type: 'string', default: path.join(ROOT, 'bench/results/first-token.json') },
  },
});
const TURNS = Number(values.turns);
const EVENTS = Number(values.events);
const WARMUP = Number(values.warmup);

/** One gateway under test: its checkout, its database, its process and its user. */
interface Subject {
  root: string;
  db: BenchDatabase;
  gateway: BenchProcess;
  user: BenchUser;
}

interface Row {
  gateway: string;
  measure: string;
  ms: Summary;
  /** In the order measured, so that a slow outlier can be placed (the first turn, say). */
  samples: number[];
}

const rounded = (times: number[]) => times.map((t) => Math.round(t * 100) / 100);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `count` rounds; in each, every subject once (their order turning with the round): what `measure` gives for it.
 * Returns the samples per subject, in the subjects' order.
 */
async function alternately(
  subjects: Subject[],
  count: number,
  measure: (subject: Subject, i: number) => Promise<number>,
): Promise<number[][]> {
  const samples = subjects.map(() => [] as number[]);
  for (let i = 0; i < count; i++)
    for (let k = 0; k < subjects.length; k++) {
      const j = (i + k) % subjects.length;
      samples[j]!.push(await measure(subjects[j]!, i));
    }
  return samples;
}

/** From calling `send` until it calls back (the gateway answered), then a short pause. */
async function roundTrip(send: (answered: () => void) => void): Promise<number> {
  const started = performance.now();
  await new Promise<void>((resolve) => send(resolve));
  const time = performance.now() - started;
  await pause(5);
  return time;
}

async function start(root: string, modelUrl: string): Promise<Subject> {
  const db = await prepareDatabase(root);
  const gateway = await startEcholoopGateway(root, db.url, modelUrl, 1);
  const [user] = await createUsers(gateway.url, 1, db.characterId);
  if (!user) throw new Error('no bench user');
  return { root, db, gateway, user };
}

async function main(): Promise<void> {
  const model = await startModel(50, 4);
  const subjects: Subject[] = [];
  const rows: Row[] = [];
  const differences: { measure: string; ms: number }[] = [];
  const record = (measure: string, samples: number[][]) => {
    samples.forEach((s, k) =>
      rows.push({ gateway: subjects[k]!.root, measure, ms: summarize(s), samples: rounded(s) }),
    );
    const [first, ...others] = samples;
    others.forEach((other, k) =>
      differences.push({
        measure: `${measure}: ${subjects[0]!.root} − ${subjects[k + 1]!.root}`,
        ms: Math.round(median(first!.map((t, i) => t - (other[i] ?? NaN))) * 100) / 100,
      }),
    );
  };
  try {
    for (const root of values['gateway-root']) subjects.push(await start(root, model.url));
    record(
      'invalid message:send → message:error',
      await alternately(subjects, EVENTS, ({ user: { socket } }) =>
        roundTrip((answered) => {
          socket.once('message:error', () => answered());
          socket.emit('message:send', { conversationId: 'x' }, () => undefined);
        }),
      ),
    );
    const noReply = { replyId: '00000000-0000-4000-8000-000000000000' };
    record(
      'message:stop of no reply → its ack',
      await alternately(subjects, EVENTS, ({ user: { socket } }) =>
        roundTrip((answered) => socket.emit('message:stop', noReply, () => answered())),
      ),
    );
    const overhead = (name: string) => async (subject: Subject, i: number) => {
      const direct = await openAiStream(model.url);
      const turn = await socketTurn(subject.user, `first-token-${name}-${i}`);
      return turn.ttftMs - direct.ttftMs;
    };
    // A process's first turns also pay for its start (connections, caches, compiled code): shown on their own, not
    // in the rows below, which are about a running gateway.
    await model.setFirstTokenDelay(0);
    record(
      `overhead before the first token, the process's first ${WARMUP} turns (delay 0)`,
      await alternately(subjects, WARMUP, overhead('warmup')),
    );
    for (const delay of [0, 150]) {
      await model.setFirstTokenDelay(delay);
      record(
        `overhead before the first token, model delay ${delay} ms`,
        await alternately(subjects, TURNS, overhead(String(delay))),
      );
      log(`delay ${delay} ms: done`);
    }
  } finally {
    for (const { gateway, db } of subjects) {
      await gateway.stop();
      await db.drop();
    }
    model.stop();
  }
  const table =
    `\nOne user per gateway, one gateway process each (ms; ${TURNS} paired turns per delay, ${EVENTS} events each)\n` +
    formatTable(
      ['gateway', 'measure', 'p50', 'p99', 'mean'],
      rows.map((r) => [r.gateway, r.measure, String(r.ms.p50), String(r.ms.p99), String(r.ms.mean)]),
    ) +
    (differences.length > 0
      ? `\nMedian of the paired differences (ms; below zero: the first gateway is faster)\n` +
        formatTable(
          ['measure', 'p50 of differences'],
          differences.map((d) => [d.measure, String(d.ms)]),
        )
      : '');
  process.stdout.write(table);
  writeBenchResult(
    path.resolve(values.out),
    { turns: TURNS, events: EVENTS, warmup: WARMUP, rows, differences },
    table,
  );
  process.stdout.write(`wrote ${values.out}\n`);
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(String(error));
    process.exit(1);
  },
);
