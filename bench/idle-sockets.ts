// What idle socket.io connections cost one gateway process: its RSS with none, then with N open (signed-in
// users on the `/chat` namespace, websocket transport), and per connection. Target: 10,000 under 1 GiB.
// Prints a table and writes bench/results/idle-sockets.json.
//
//   node -r @swc-node/register bench/idle-sockets.ts [--sockets 10000] [--users 100] [--concurrency 200]
//
// Needs the local stack (PostgreSQL, Kafka): tools/stack/stack.sh up postgres kafka. The file-descriptor limit
// (`ulimit -n`) must exceed the socket count, for this process and the gateway.
import { parseArgs } from 'node:util';
import { io, type Socket } from 'socket.io-client';
import { formatTable, log, prepareDatabase, ROOT, startModel, writeBenchResult } from './bench-env';
import { cpuSeconds, round, rssMiB } from './stats';
import { startEcholoopGateway } from './turn-path-targets';

const { values } = parseArgs({
  options: {
    sockets: { type: 'string', default: '10000' },
    users: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '200' },
  },
});
const socketCount = Number(values.sockets);
const userCount = Number(values.users);
const concurrency = Number(values.concurrency);

async function register(url: string, i: number): Promise<string> {
  const res = await fetch(`${url}/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      email: `idle-${i}-${Date.now()}@example.com`,
      password: 'benchmark-password',
      displayName: `Idle ${i}`,
    }),
  });
  return ((await res.json()) as { accessToken: string }).accessToken;
}

function connect(url: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(`${url}/chat`, { auth: { token }, transports: ['websocket'], reconnection: false });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** Settles after the gateway's RSS stops moving (GC and allocator settle), or after 10 s. */
async function settledRss(pid: number): Promise<number> {
  let last = rssMiB(pid);
  for (let i = 0; i < 20; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = rssMiB(pid);
    if (Math.abs(now - last) < 1) return now;
    last = now;
  }
  return last;
}

async function main(): Promise<void> {
  const database = await prepareDatabase();
  const model = await startModel(50, 40);
  const gateway = await startEcholoopGateway(ROOT, database.url, model.url);
  const sockets: Socket[] = [];
  try {
    log(`registering ${userCount} users`);
    const tokens = await Promise.all(Array.from({ length: userCount }, (_, i) => register(gateway.url, i)));
    const baseline = await settledRss(gateway.pid);
    const cpuBefore = cpuSeconds(gateway.pid);
    const started = performance.now();
    for (let next = 0; next < socketCount; next += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, socketCount - next) }, (_, i) =>
        connect(gateway.url, tokens[(next + i) % userCount] ?? ''),
      );
      sockets.push(...(await Promise.all(batch)));
      if ((next / concurrency) % 10 === 0) log(`${sockets.length}/${socketCount} connected`);
    }
    const connectSeconds = (performance.now() - started) / 1_000;
    const connectCpu = cpuSeconds(gateway.pid) - cpuBefore;
    const loaded = await settledRss(gateway.pid);
    const idleCpuStart = cpuSeconds(gateway.pid);
    await new Promise((resolve) => setTimeout(resolve, 30_000));
    const idleCpu = (cpuSeconds(gateway.pid) - idleCpuStart) / 30;
    const result = {
      sockets: sockets.length,
      rssBaselineMiB: round(baseline),
      rssWithSocketsMiB: round(loaded),
      kibPerSocket: round(((loaded - baseline) * 1024) / sockets.length),
      connectSeconds: round(connectSeconds),
      connectCpuMsPerSocket: round((connectCpu * 1_000) / sockets.length),
      idleCpuShareOfCore: round(idleCpu),
      underOneGiB: loaded < 1024,
    };
    const table = formatTable(
      [
        'sockets',
        'RSS before MiB',
        'RSS with sockets MiB',
        'KiB/socket',
        'connect s',
        'CPU ms/connect',
        'idle CPU (cores)',
      ],
      [
        [
          String(result.sockets),
          String(result.rssBaselineMiB),
          String(result.rssWithSocketsMiB),
          String(result.kibPerSocket),
          String(result.connectSeconds),
          String(result.connectCpuMsPerSocket),
          String(result.idleCpuShareOfCore),
        ],
      ],
    );
    process.stdout.write(table);
    writeBenchResult('idle-sockets.json', result, table);
  } finally {
    for (const socket of sockets) socket.disconnect();
    await gateway.stop();
    model.stop();
    await database.drop();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
