import type { ChatRequest } from '@echoloop/llm';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JudgeBatcher } from './judge-batcher';
import { JudgeClient } from './judge-client';

const ask = (content: string, maxTokens = 32): ChatRequest => ({
  model: 'judge',
  messages: [{ role: 'user', content }],
  maxTokens,
  temperature: 0,
});

describe('JudgeBatcher', () => {
  let vllm: FakeVllm;
  let client: JudgeClient;
  const warnings: object[] = [];
  const batcher = (maxBatch: number, baseUrl = vllm.url, timeoutMs = 2_000) => {
    client = new JudgeClient({
      baseUrl,
      apiKey: 'k',
      timeoutMs,
      maxSockets: 4,
      breaker: { failureThreshold: 100, cooldownMs: 1_000 },
    });
    return new JudgeBatcher(client, maxBatch, { warn: (context) => warnings.push(context) });
  };
  const paths = () => vllm.requests.map((r) => r.path);

  beforeEach(async () => {
    warnings.length = 0;
    // Echoes each conversation's last user message, so every answer says whose it is.
    vllm = await startFakeVllm({ model: 'judge' });
  });
  afterEach(async () => {
    client.close();
    await vllm.close();
  });

  it('sends calls made together as one batch request, each answered with its own conversation’s reply', async () => {
    const judges = batcher(32);
    const answers = await Promise.all(['a', 'b', 'c'].map((c) => judges.complete(ask(`rate ${c}`))));
    expect(answers.map((a) => a.text)).toEqual(['rate a', 'rate b', 'rate c']);
    expect(paths()).toEqual(['/v1/chat/completions/batch']);
    expect((vllm.requests[0]?.body as { messages: unknown[] }).messages).toHaveLength(3);
  });

  it('splits at the batch size, and never mixes calls whose parameters differ', async () => {
    const judges = batcher(2);
    const calls = [ask('1'), ask('2'), ask('3'), ask('4', 99)];
    const answers = await Promise.all(calls.map((c) => judges.complete(c)));
    expect(answers.map((a) => a.text)).toEqual(['1', '2', '3', '4']);
    const sizes = vllm.requests.map((r) => {
      const { messages, max_tokens } = r.body as { messages: unknown[]; max_tokens: number };
      return [r.path.endsWith('/batch') ? messages.length : 1, max_tokens];
    });
    expect(sizes.sort()).toEqual([
      [1, 32],
      [1, 99],
      [2, 32],
    ]);
  });

  it('a slow conversation fails alone: its batch is sent again call by call', async () => {
    vllm.setFaults((request) =>
      JSON.stringify(request.messages).includes('slow') ? { delayBeforeFirstTokenMs: 3_000 } : undefined,
    );
    const judges = batcher(32, vllm.url, 500);
    const [fast, slow] = await Promise.allSettled([
      judges.complete(ask('fast')),
      judges.complete(ask('slow')),
    ]);
    expect(fast).toMatchObject({ status: 'fulfilled', value: { text: 'fast' } });
    expect(slow).toMatchObject({ status: 'rejected', reason: { code: 'model_timeout' } });
  });

  it('a conversation the judge refuses fails alone (vLLM refuses the whole batch)', async () => {
    const judges = batcher(32);
    const [ok, tooLong] = await Promise.allSettled([
      judges.complete(ask('short')),
      judges.complete(ask('word '.repeat(5_000))),
    ]);
    expect(ok).toMatchObject({ status: 'fulfilled', value: { text: 'short' } });
    expect(tooLong).toMatchObject({ status: 'rejected', reason: { code: 'model_rejected', status: 400 } });
    expect(paths()[0]).toBe('/v1/chat/completions/batch');
  });

  it('calls a judge without the batch route one by one from then on', async () => {
    // A server that knows only /v1/chat/completions, as older vLLM versions.
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.url !== '/v1/chat/completions') {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
          return;
        }
        const { messages } = JSON.parse(body) as { messages: { content: string }[] };
        const content = messages.at(-1)?.content;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ index: 0, message: { content }, finish_reason: 'stop' }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const seen: string[] = [];
    server.on('request', (req: { url: string }) => seen.push(req.url));
    try {
      const judges = batcher(32, `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
      const first = await Promise.all([judges.complete(ask('x')), judges.complete(ask('y'))]);
      expect(first.map((a) => a.text)).toEqual(['x', 'y']);
      const later = await Promise.all([judges.complete(ask('z')), judges.complete(ask('w'))]);
      expect(later.map((a) => a.text)).toEqual(['z', 'w']);
      expect(seen.filter((url) => url.endsWith('/batch'))).toHaveLength(1);
      expect(warnings).toEqual([{ status: 404 }]);
    } finally {
      client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('with a batch size of 1, every call is its own request', async () => {
    const judges = batcher(1);
    await Promise.all([judges.complete(ask('a')), judges.complete(ask('b'))]);
    expect(paths()).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });
});
