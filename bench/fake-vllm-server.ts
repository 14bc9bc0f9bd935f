// The vLLM-compatible test server as its own process, paced at a fixed token rate, for benchmarks.
// Prints its URL on stdout. Usage: node -r @swc-node/register bench/fake-vllm-server.ts <tokensPerSecond> <replyTokens>
import { replyWith, startFakeVllm } from '@echoloop/testing';

async function main(): Promise<void> {
  const tokensPerSecond = Number(process.argv[2] ?? 50);
  const replyTokens = Number(process.argv[3] ?? 40);
  const server = await startFakeVllm({
    model: 'bench-model',
    reply: replyWith(Array.from({ length: replyTokens }, (_, i) => `w${i}`).join(' ')),
    faults: { tokensPerSecond },
    maxModelLen: 32_768,
  });
  process.stdout.write(`${server.url}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

void main();
