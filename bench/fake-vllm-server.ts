// The vLLM-compatible test server as its own process, paced at a fixed token rate, for benchmarks.
// Prints its URL on stdout.
//   node -r @swc-node/register bench/fake-vllm-server.ts <tokensPerSecond> <replyTokens> [firstTokenDelayMs]
//     [keepAliveTimeoutMs]
// Each JSON line on stdin (e.g. {"delayBeforeFirstTokenMs":150}) changes the faults of the replies started after
// it, and is answered by a line "ok" on stdout.
import { replyWith, startFakeVllm, type FakeVllmFaults } from '@echoloop/testing';
import { createInterface } from 'node:readline';

async function main(): Promise<void> {
  const tokensPerSecond = Number(process.argv[2] ?? 50);
  const replyTokens = Number(process.argv[3] ?? 40);
  const delayBeforeFirstTokenMs = Number(process.argv[4] ?? 0);
  const keepAliveArg = process.argv[5];
  let faults: FakeVllmFaults = { tokensPerSecond, delayBeforeFirstTokenMs };
  const server = await startFakeVllm({
    model: 'bench-model',
    reply: replyWith(Array.from({ length: replyTokens }, (_, i) => `w${i}`).join(' ')),
    faults,
    maxModelLen: 32_768,
    // Left out, the test server's own default (vLLM's).
    ...(keepAliveArg !== undefined && { keepAliveTimeoutMs: Number(keepAliveArg) }),
  });
  process.stdout.write(`${server.url}\n`);
  createInterface({ input: process.stdin }).on('line', (line) => {
    faults = { ...faults, ...(JSON.parse(line) as FakeVllmFaults) };
    server.setFaults(faults);
    process.stdout.write('ok\n');
  });
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

void main();
