// Does a turn slow down as its conversation, or the whole messages table, grows? Time to first token over socket.io,
// with a model that answers at once (so the first token waits for the turn's statement), and to `message:done`
// (after the reply's commit), in conversations already holding 0 to 50,000 messages. The history a prompt reads is
// capped, so any growth is work done per stored message. Turns are interleaved across the conversations, round by
// round. Prints a table and writes
// bench/results/long-conversations.json.
//
//   npm run bench:long-conversations -- [--lengths 0,1000,10000,50000] [--turns 30] [--gateway-root DIR]
//   (needs tools/stack/stack.sh up postgres kafka)
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, log, prepareDatabase, ROOT, startModel, writeBenchResult } from './bench-env';
import { summarize } from './stats';
import { createUsers, socketTurn } from './stream-clients';
import { startEcholoopGateway } from './turn-path-targets';

const { values } = parseArgs({
  options: {
    lengths: { type: 'string', default: '0,1000,10000,50000' },
    turns: { type: 'string', default: '30' },
    'gateway-root': { type: 'string', default: ROOT },
  },
});
const lengths = values.lengths.split(',').map(Number);
const turns = Number(values.turns);
const gatewayRoot = path.resolve(values['gateway-root']);

/**
 * `count` messages before now, a user message and its reply in turn, numbered as the gateway numbers user messages
 * where the schema has the column (a checkout from before numbering has not).
 */
function fillConversation(databaseUrl: string, conversationId: string, count: number): void {
  const sql = `
    INSERT INTO messages (conversation_id, role, content, created_at)
    SELECT '${conversationId}', CASE WHEN g % 2 = 1 THEN 'user' ELSE 'assistant' END,
           'Earlier message ' || g, now() - interval '2 days' + g * interval '1 second'
      FROM generate_series(1, ${count}) g;
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'messages' AND column_name = 'user_turn') THEN
        EXECUTE 'UPDATE messages m SET user_turn = n.turn FROM (SELECT id, row_number() OVER (ORDER BY created_at, id)
                   AS turn FROM messages WHERE role = ''user'' AND conversation_id = ''${conversationId}'') n WHERE m.id = n.id';
      END IF;
    END $$;
    ANALYZE messages;`;
  execFileSync('psql', [databaseUrl, '-qc', sql]);
}

async function main(): Promise<void> {
  const db = await prepareDatabase(gatewayRoot);
  const model = await startModel(50, 8);
  const gateway = await startEcholoopGateway(gatewayRoot, db.url, model.url);
  try {
    const users = await createUsers(gateway.url, lengths.length, db.characterId);
    log(`filling ${lengths.length} conversations (${lengths.join(', ')} messages)`);
    lengths.forEach((length, i) => fillConversation(db.url, users[i]!.conversationId, length));
    // Each user's first turn counts the day's messages once (their quota); not part of the measure.
    for (const [i, user] of users.entries()) await socketTurn(user, `warm-${i}`);
    const ttft = lengths.map(() => [] as number[]);
    const total = lengths.map(() => [] as number[]);
    for (let t = 0; t < turns; t++) {
      for (const [i, user] of users.entries()) {
        const timing = await socketTurn(user, `turn-${t}`);
        ttft[i]!.push(timing.ttftMs);
        total[i]!.push(timing.totalMs);
      }
      if ((t + 1) % 10 === 0) log(`${t + 1}/${turns} rounds`);
    }
    const rows = lengths.map((length, i) => ({
      messages: length,
      ttftMs: summarize(ttft[i]!),
      totalMs: summarize(total[i]!),
    }));
    const table =
      `\nTurn times by conversation length (model: first token at once, 8 tokens at 50/s; ${turns} turns each; gateway from ${gatewayRoot})\n` +
      formatTable(
        ['messages before', 'TTFT p50 / p99 ms', 'turn to done p50 / p99 ms'],
        rows.map((r) => [
          String(r.messages),
          `${r.ttftMs.p50} / ${r.ttftMs.p99}`,
          `${r.totalMs.p50} / ${r.totalMs.p99}`,
        ]),
      );
    process.stdout.write(table);
    log(`wrote ${writeBenchResult('long-conversations.json', { gatewayRoot, turns, rows }, table)}`);
  } finally {
    await gateway.stop();
    model.stop();
    await db.drop();
  }
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(String(error instanceof Error ? error.stack : error));
    process.exit(1);
  },
);
