// What the gateway adds before the first token and between tokens, against the same model server called
// directly, at 1, 50 and 200 concurrent streams. Prints a table and writes bench/results/gateway-overhead.json.
//
//   node -r @swc-node/register bench/gateway-overhead.ts [--levels 1,50,200] [--rounds 3] [--rate 50] [--tokens 40]
//
// Needs the local stack (PostgreSQL, Kafka): tools/stack/stack.sh up postgres kafka.
import { startApp } from '@echoloop/testing';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, log, prepareDatabase, ROOT, startModel, writeBenchResult } from './bench-env';
import { cpuSeconds, round, rssMiB, type Summary } from './stats';
import {
  createUsers,
  openAiStream,
  socketTurn,
  summarizeTimings,
  type BenchUser,
  type StreamTiming,
} from './stream-clients';

const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '1,50,200' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '50' },
    tokens: { type: 'string', default: '40' },
  },
});
const levels = values.levels.split(',').map(Number);
const rounds = Number(values.rounds);

async function main(): Promise<void> {
  const db = await prepareDatabase();
  const model = await startModel(Number(values.rate), Number(values.tokens));
  try {
    await run(db.url, model.url, db.characterId);
  } finally {
    model.stop();
    await db.drop();
  }
}

async function run(databaseUrl: string, modelUrl: string, characterId: string): Promise<void> {
  const maxLevel = Math.max(...levels);
  const gateway = await startApp('chat-gateway', {
    DATABASE_URL: databaseUrl,
    LLM_BASE_URL: modelUrl,
    LLM_MODEL: 'bench-model',
    RATE_LIMIT_PER_MINUTE: '100000',
    AUTH_ATTEMPTS_PER_MINUTE: '100000',
    DAILY_MESSAGE_QUOTA: '100000',
    DATABASE_POOL_SIZE: '40',
  });
  // This process's own child: other gateways may run on the machine.
  const gatewayPid = Number(
    execFileSync('pgrep', ['-P', String(process.pid), '-f', 'apps/chat-gateway/src/main.ts'])
      .toString()
      .trim(),
  );
  log(`gateway pid ${gatewayPid}, model ${modelUrl}; creating ${maxLevel} users`);
  try {
    const results = await measure(
      gatewayPid,
      modelUrl,
      await createUsers(gateway.url, maxLevel, characterId),
    );
    print(results, await insideGateway(gateway.url));
  } finally {
    await gateway.stop();
  }
}

async function measure(gatewayPid: number, modelUrl: string, users: BenchUser[]) {
  const results = [];
  let message = 0;
  for (const level of levels) {
    const direct: StreamTiming[] = [];
    const viaGateway: StreamTiming[] = [];
    let cpu = 0;
    for (let round = 0; round < rounds; round++) {
      direct.push(...(await Promise.all(Array.from({ length: level }, () => openAiStream(modelUrl)))));
      const before = cpuSeconds(gatewayPid);
      viaGateway.push(
        ...(await Promise.all(users.slice(0, level).map((user) => socketTurn(user, `m${message++}`)))),
      );
      cpu += cpuSeconds(gatewayPid) - before;
    }
    const d = summarizeTimings(direct);
    const g = summarizeTimings(viaGateway);
    const row = {
      concurrency: level,
      streams: viaGateway.length,
      direct: d,
      gateway: g,
      overheadTtftMs: { p50: round(g.ttft.p50 - d.ttft.p50), p99: round(g.ttft.p99 - d.ttft.p99) },
      gatewayCpuSecondsPerStream: round(cpu / viaGateway.length),
      gatewayRssMiB: rssMiB(gatewayPid),
    };
    results.push(row);
    log(`c=${level}: overhead ttft p50 ${row.overheadTtftMs.p50} ms, p99 ${row.overheadTtftMs.p99} ms`);
  }

  users.forEach((u) => u.socket.disconnect());
  return results;
}

/** The gateway's own view: mean time from starting a reply to its first token (model TTFT included). */
async function insideGateway(url: string): Promise<{ meanReplyStartToFirstTokenMs: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{[^}]*\\} ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  const sum = value('chat_time_to_first_token_seconds_sum');
  const count = value('chat_time_to_first_token_seconds_count');
  return { meanReplyStartToFirstTokenMs: round((sum / count) * 1_000) };
}

function print(
  results: Awaited<ReturnType<typeof measure>>,
  gatewayView: { meanReplyStartToFirstTokenMs: number },
) {
  const fmt = (s: Summary) => `${s.p50} / ${s.p99}`;
  const header = [
    'streams',
    'direct TTFT p50/p99',
    'gateway TTFT p50/p99',
    'overhead p50/p99',
    'direct gap p50/p99',
    'gateway gap p50/p99',
    'CPU s/stream',
    'RSS MiB',
  ];
  const rows = results.map((r) => [
    String(r.concurrency),
    fmt(r.direct.ttft),
    fmt(r.gateway.ttft),
    `${r.overheadTtftMs.p50} / ${r.overheadTtftMs.p99}`,
    fmt(r.direct.gap),
    fmt(r.gateway.gap),
    String(r.gatewayCpuSecondsPerStream),
    String(r.gatewayRssMiB),
  ]);
  const table =
    `\nGateway overhead (ms; model at ${values.rate} tok/s, ${values.tokens} tokens, ${rounds} rounds)\n` +
    formatTable(header, rows);
  process.stdout.write(table);
  const out = path.join(ROOT, 'bench/results/gateway-overhead.json');
  mkdirSync(path.dirname(out), { recursive: true });
  const report = {
    benchmark: 'gateway-overhead',
    gatewayView,
    at: new Date().toISOString(),
    rate: Number(values.rate),
    tokens: Number(values.tokens),
    rounds,
    results,
  };
  writeBenchResult(path.resolve(out), report, table);
  process.stdout.write(`\n${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
