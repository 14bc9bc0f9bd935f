// The real engine through the gateway: one user's turns over socket.io, each right after a direct stream to the
// same engine, so both meet the machine in the same moment. Prints first token and tokens per second of each, and
// writes bench/results/real-engine.json with the command, date, machine and every sample.
//
//   npm run bench:real-engine [-- --llm-url http://127.0.0.1:18000/v1]
//     [--model smollm2-135m-instruct] [--turns 15] [--max-tokens 48] [--out FILE]
//
// Needs the local stack with its engine: tools/stack/stack.sh up postgres kafka model.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, log, prepareDatabase, ROOT, writeBenchResult } from './bench-env';
import { summarize } from './stats';
import { createUsers, openAiStream, socketTurn, type StreamTiming } from './stream-clients';
import { startEcholoopGateway } from './turn-path-targets';

const { values } = parseArgs({
  options: {
    'llm-url': { type: 'string', default: 'http://127.0.0.1:18000/v1' },
    model: { type: 'string', default: 'smollm2-135m-instruct' },
    turns: { type: 'string', default: '15' },
    'max-tokens': { type: 'string', default: '48' },
    out: { type: 'string', default: path.join(ROOT, 'bench/results/real-engine.json') },
  },
});

const tokensPerSecond = (t: StreamTiming) =>
  ((t.gapsMs.length + 1) * 1_000) / Math.max(1, t.totalMs - t.ttftMs);

async function main(): Promise<void> {
  const turns = Number(values.turns);
  const maxTokens = Number(values['max-tokens']);
  const llmUrl = values['llm-url'];
  const database = await prepareDatabase();
  const gateway = await startEcholoopGateway(ROOT, database.url, llmUrl, 1, undefined, {
    LLM_MODEL: values.model,
    LLM_MAX_TOKENS: String(maxTokens),
    LLM_FIRST_TOKEN_TIMEOUT_MS: '60000',
  });
  try {
    const [user] = await createUsers(gateway.url, 1, database.characterId);
    const samples: { direct: StreamTiming; gateway: StreamTiming }[] = [];
    for (let i = 0; i < turns; i++) {
      const direct = await openAiStream(llmUrl, {}, 120_000, { model: values.model, max_tokens: maxTokens });
      const viaGateway = await socketTurn(user!, `real-engine-${i}`);
      samples.push({ direct, gateway: viaGateway });
      log(
        `turn ${i + 1}/${turns}: first token ${Math.round(viaGateway.ttftMs)} ms (direct ${Math.round(direct.ttftMs)} ms)`,
      );
    }
    user!.socket.disconnect();
    const row = (name: string, pick: (s: (typeof samples)[number]) => StreamTiming) => {
      const ttft = summarize(samples.map((s) => pick(s).ttftMs));
      const rate = summarize(samples.map((s) => tokensPerSecond(pick(s))));
      return { name, ttft, tokensPerSecond: rate };
    };
    const rows = [
      row('direct to the engine', (s) => s.direct),
      row('through the gateway (socket.io)', (s) => s.gateway),
    ];
    const table = formatTable(
      ['path', 'first token p50 ms', 'p99 ms', 'tokens/s p50'],
      rows.map((r) => [r.name, String(r.ttft.p50), String(r.ttft.p99), String(r.tokensPerSecond.p50)]),
    );
    process.stdout.write(table);
    writeBenchResult(path.resolve(values.out), { rows, samples }, table);
    log(`wrote ${values.out}`);
  } finally {
    await gateway.stop();
    await database.drop();
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
