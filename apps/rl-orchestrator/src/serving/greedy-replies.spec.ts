import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import type { CheckpointView } from '../clients/gateway.client';
import { orchestratorEnv } from '../env';
import { GreedyReplies } from './greedy-replies';

describe('GreedyReplies', () => {
  let vllm: FakeVllm;
  let inFlight: number[];

  beforeAll(async () => {
    vllm = await startFakeVllm({
      model: 'base',
      // Each answer waits a little, so the requests of one batch overlap; it echoes the prompt.
      faults: { delayBeforeFirstTokenMs: 100 },
      reply: (request) => {
        inFlight.push(
          vllm.requests.filter((r) => r.path.endsWith('/chat/completions') && !r.completed).length,
        );
        return `re: ${String(request.messages.at(-1)?.content)}`;
      },
    });
  });
  beforeEach(() => (inFlight = []));
  afterAll(() => vllm.close());

  const checkpoint = (): CheckpointView => ({
    id: 'base',
    modelName: 'base',
    endpoints: [{ baseUrl: vllm.url }],
    adapterPath: null,
    decoding: {},
    contextTokens: 4096,
    status: 'active',
    isDefault: true,
    servedOn: [],
    createdAt: '2026-12-07T00:00:00.000Z',
  });
  const prompts = Array.from({ length: 7 }, (_, i) => [{ role: 'user' as const, content: `prompt ${i}` }]);
  const answer = (env: Record<string, string>) => {
    const { hostname, port } = new URL(vllm.url);
    const replies = new GreedyReplies(
      orchestratorEnv.parse({ LLM_BASE_URL: `http://${hostname}:${port}/v1`, ...env }),
    );
    return replies.answer(checkpoint(), prompts);
  };

  it('answers GATE_CONCURRENCY prompts at once, greedily, each answer in its prompt’s place', async () => {
    const answers = await answer({ GATE_CONCURRENCY: '3', GATE_MAX_TOKENS: '16' });
    expect(answers).toEqual(prompts.map(([m]) => `re: ${m!.content}`));
    expect(Math.max(...inFlight)).toBe(3);
    const bodies = vllm.requests.slice(-7).map((r) => r.body as { temperature: number; max_tokens: number });
    expect(bodies.every((b) => b.temperature === 0 && b.max_tokens === 16)).toBe(true);
  });

  it('one at a time with GATE_CONCURRENCY=1', async () => {
    await answer({ GATE_CONCURRENCY: '1' });
    expect(Math.max(...inFlight)).toBe(1);
  });
});
