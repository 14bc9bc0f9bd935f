// What the gateway adds before the first token and between tokens, against the same model server called
// directly, at 1, 50 and 200 concurrent streams. Prints a table and writes bench/results/gateway-overhead.json.
//
//   node -r @swc-node/register bench/gateway-overhead.ts [--levels 1,50,200] [--rounds 3] [--rate 50] [--tokens 40]
//
// Needs the local stack (PostgreSQL, Kafka): tools/stack/stack.sh up postgres kafka.
import { createTestDatabase, startApp, type AppProcess } from '@echoloop/testing';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { io, type Socket } from 'socket.io-client';
import { cpuSeconds, round, rssMiB, summarize, type Summary } from './stats';

const ROOT = path.resolve(__dirname, '..');
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

interface StreamTiming {
  ttftMs: number;
  gapsMs: number[];
  totalMs: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

async function startModel(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ['-r', '@swc-node/register', 'bench/fake-vllm-server.ts', values.rate, values.tokens],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve) =>
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())),
  );
  return { url, stop: () => child.kill('SIGTERM') };
}

/** One streaming request straight to the model server, timed like a client would time it. */
async function directStream(url: string): Promise<StreamTiming> {
  const started = performance.now();
  const res = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer none' },
    body: JSON.stringify({
      model: 'bench-model',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hello' }],
    }),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let last = 0;
  let ttftMs = 0;
  const gapsMs: number[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const events = buffer.split('\n\n');
    buffer = events.pop() ?? '';
    for (const event of events) {
      if (!event.includes('"content":"') || event.includes('"content":""')) continue;
      const now = performance.now();
      if (!ttftMs) ttftMs = now - started;
      else gapsMs.push(now - last);
      last = now;
    }
  }
  return { ttftMs, gapsMs, totalMs: performance.now() - started };
}

interface BenchUser {
  socket: Socket;
  conversationId: string;
}

async function gatewayStream(user: BenchUser, id: string): Promise<StreamTiming> {
  const started = performance.now();
  let last = 0;
  let ttftMs = 0;
  const gapsMs: number[] = [];
  const onDelta = () => {
    const now = performance.now();
    if (!ttftMs) ttftMs = now - started;
    else gapsMs.push(now - last);
    last = now;
  };
  user.socket.on('message:delta', onDelta);
  try {
    await new Promise<void>((resolve, reject) => {
      user.socket.once('message:done', () => resolve());
      user.socket.once('message:error', (error: { code: string }) => reject(new Error(error.code)));
      user.socket.emit('message:send', {
        conversationId: user.conversationId,
        content: 'hello',
        clientMessageId: id,
      });
    });
  } finally {
    user.socket.off('message:delta', onDelta);
  }
  return { ttftMs, gapsMs, totalMs: performance.now() - started };
}

async function createUsers(gateway: AppProcess, count: number, characterId: string): Promise<BenchUser[]> {
  const users: BenchUser[] = [];
  for (let i = 0; i < count; i++) {
    const call = async (route: string, body: unknown, token?: string) => {
      const res = await fetch(`${gateway.url}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      });
      return (await res.json()) as Record<string, string>;
    };
    const { accessToken } = await call('/v1/auth/register', {
      email: `bench-${i}-${Date.now()}@example.com`,
      password: 'benchmark-password',
      displayName: `Bench ${i}`,
    });
    const conversation = await call('/v1/conversations', { characterId }, accessToken);
    const socket = io(`${gateway.url}/chat`, { auth: { token: accessToken }, transports: ['websocket'] });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    users.push({ socket, conversationId: conversation['id'] ?? '' });
  }
  return users;
}

function sum(timings: StreamTiming[]) {
  return {
    ttft: summarize(timings.map((t) => t.ttftMs)),
    gap: summarize(timings.flatMap((t) => t.gapsMs)),
    total: summarize(timings.map((t) => t.totalMs)),
  };
}

async function main(): Promise<void> {
  const db = await createTestDatabase('bench');
  const env = { ...process.env, DATABASE_URL: db.url, SWC_NODE_PROJECT: 'tsconfig.base.json' };
  execFileSync(process.execPath, ['tools/typeorm-cli.cjs', 'migration:run'], {
    cwd: ROOT,
    env,
    stdio: 'ignore',
  });
  execFileSync(process.execPath, ['-r', '@swc-node/register', 'tools/seed/src/main.ts'], {
    cwd: ROOT,
    env,
    stdio: 'ignore',
  });
  const characterId = execFileSync('psql', [db.url, '-Atc', 'SELECT id FROM characters LIMIT 1'])
    .toString()
    .trim();

  const model = await startModel();
  try {
    await run(db.url, model.url, characterId);
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
  const gatewayPid = Number(
    execFileSync('pgrep', ['-f', '-n', 'apps/chat-gateway/src/main.ts']).toString().trim(),
  );
  log(`gateway pid ${gatewayPid}, model ${modelUrl}; creating ${maxLevel} users`);
  try {
    const results = await measure(gatewayPid, modelUrl, await createUsers(gateway, maxLevel, characterId));
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
      direct.push(...(await Promise.all(Array.from({ length: level }, () => directStream(modelUrl)))));
      const before = cpuSeconds(gatewayPid);
      viaGateway.push(
        ...(await Promise.all(users.slice(0, level).map((user) => gatewayStream(user, `m${message++}`)))),
      );
      cpu += cpuSeconds(gatewayPid) - before;
    }
    const d = sum(direct);
    const g = sum(viaGateway);
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
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ');
  process.stdout.write(
    `\nGateway overhead (ms; model at ${values.rate} tok/s, ${values.tokens} tokens, ${rounds} rounds)\n`,
  );
  process.stdout.write(
    `${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('-|-')}\n${rows.map(line).join('\n')}\n`,
  );
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
  writeFileSync(out, JSON.stringify(report, null, 2));
  process.stdout.write(`\n${JSON.stringify(report)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
