// One user's first token, step by step: the gateway's answer to an invalid message and to a stop (socket.io's round
// trip plus the handler), then turns of one conversation over socket.io, each paired with a direct request to the
// model server just before it, at a model first-token delay of 0 and of 150 ms. The overhead of a turn is its
// time to first token minus its pair's: pairing cancels the model server's own variation, which at one stream is
// larger than what is measured. Short replies (4 tokens), so the turns are many. The process's first turns are a row
// of their own. Prints a table and writes bench/results/first-token.json, with every sample in the order measured.
//
//   node -r @swc-node/register bench/first-token.ts [--turns 150] [--events 100] [--warmup 5] [--gateway-root DIR]
//     [--out FILE]
//
// Needs the local stack (PostgreSQL, Kafka): tools/stack/stack.sh up postgres kafka.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, log, prepareDatabase, ROOT, startModel } from './bench-env';
import { summarize, type Summary } from './stats';
import { createUsers, openAiStream, socketTurn } from './stream-clients';
import { startEcholoopGateway } from './turn-path-targets';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '150' },
    events: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '5' },
    'gateway-root': { type: 'string', default: ROOT },
    out: { type: 'string', default: path.join(ROOT, 'bench/results/first-token.json') },
  },
});
const TURNS = Number(values.turns);
const EVENTS = Number(values.events);
const WARMUP = Number(values.warmup);

/** In the order measured, so that a slow outlier can be placed (the first turn, say). */
const rounded = (times: number[]) => times.map((t) => Math.round(t * 100) / 100);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `EVENTS` times, one after another: from calling `send` until it calls back (the gateway answered). */
async function roundTrips(send: (answered: () => void) => void): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => send(resolve));
    times.push(performance.now() - started);
    await pause(5);
  }
  return times;
}

async function main(): Promise<void> {
  const root = values['gateway-root'];
  const db = await prepareDatabase(root);
  const model = await startModel(50, 4);
  const gateway = await startEcholoopGateway(root, db.url, model.url, 1);
  const rows: { measure: string; ms: Summary; samples: number[] }[] = [];
  try {
    const [user] = await createUsers(gateway.url, 1, db.characterId);
    if (!user) throw new Error('no bench user');
    const { socket } = user;
    const invalid = await roundTrips((answered) => {
      socket.once('message:error', () => answered());
      socket.emit('message:send', { conversationId: 'x' }, () => undefined);
    });
    rows.push({
      measure: 'invalid message:send → message:error',
      ms: summarize(invalid),
      samples: rounded(invalid),
    });
    const noReply = { replyId: '00000000-0000-4000-8000-000000000000' };
    const stops = await roundTrips((answered) => socket.emit('message:stop', noReply, () => answered()));
    rows.push({
      measure: 'message:stop of no reply → its ack',
      ms: summarize(stops),
      samples: rounded(stops),
    });
    // A process's first turns also pay for its start (connections, caches, compiled code): shown on their own, not
    // in the rows below, which are about a running gateway.
    await model.setFirstTokenDelay(0);
    const warmup: number[] = [];
    for (let i = 0; i < WARMUP; i++) {
      const direct = await openAiStream(model.url);
      const turn = await socketTurn(user, `first-token-warmup-${i}`);
      warmup.push(turn.ttftMs - direct.ttftMs);
    }
    rows.push({
      measure: `overhead before the first token, the process's first ${WARMUP} turns (delay 0)`,
      ms: summarize(warmup),
      samples: rounded(warmup),
    });
    for (const delay of [0, 150]) {
      await model.setFirstTokenDelay(delay);
      const overheads: number[] = [];
      for (let i = 0; i < TURNS; i++) {
        const direct = await openAiStream(model.url);
        const turn = await socketTurn(user, `first-token-${delay}-${i}`);
        overheads.push(turn.ttftMs - direct.ttftMs);
      }
      rows.push({
        measure: `overhead before the first token, model delay ${delay} ms`,
        ms: summarize(overheads),
        samples: rounded(overheads),
      });
      log(`delay ${delay} ms: done`);
    }
  } finally {
    await gateway.stop();
    model.stop();
    await db.drop();
  }
  process.stdout.write(
    `\nOne user, one gateway process (ms; ${TURNS} paired turns per delay, ${EVENTS} events each)\n` +
      formatTable(
        ['measure', 'p50', 'p99', 'mean'],
        rows.map((r) => [r.measure, String(r.ms.p50), String(r.ms.p99), String(r.ms.mean)]),
      ),
  );
  mkdirSync(path.dirname(values.out), { recursive: true });
  writeFileSync(
    values.out,
    `${JSON.stringify({ turns: TURNS, events: EVENTS, warmup: WARMUP, rows }, null, 2)}\n`,
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
