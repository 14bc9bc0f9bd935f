import type { ChatMessage } from '@echoloop/llm';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { conversationSeed, simulatorDeps } from './model-calls';

const FORMAT = { type: 'json_schema', json_schema: { name: 'x', schema: {}, strict: true } } as const;
const said = (reply: string): ChatMessage[] => [
  { role: 'system', content: 'You are Sam, who just moved to a new city.' },
  { role: 'user', content: reply },
];

describe('the simulated user seeds its sampling by the conversation', () => {
  let server: FakeVllm;

  beforeAll(async () => {
    server = await startFakeVllm({
      model: 'simulator',
      reply: () => JSON.stringify({ thinking: 't', draft: 'd', response: 'ok', goodbye: false }),
    });
  });
  afterAll(() => server.close());

  it('draws the same seed for the same conversation, another when a reply differs', () => {
    const seed = conversationSeed(said('That sounds lonely.'), FORMAT);
    expect(conversationSeed(said('That sounds lonely.'), FORMAT)).toBe(seed);
    expect(conversationSeed(said('Whatever.'), FORMAT)).not.toBe(seed);
    expect(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 31).toBe(true);
  });

  it('sends that seed with every simulator call, so two checkpoints meet the same user', async () => {
    const deps = simulatorDeps({
      baseUrl: server.url,
      apiKey: 'k',
      model: 'simulator',
      contextTokens: 2048,
      maxTokens: 64,
    });
    await deps.actor(said('That sounds lonely.'));
    await deps.actor(said('That sounds lonely.'));
    await deps.actor(said('Whatever.'));
    const seeds = server.requests
      .filter((r) => r.path.endsWith('/chat/completions'))
      .map((r) => (r.body as { seed?: number }).seed);
    expect(seeds[0]).toEqual(expect.any(Number));
    expect(seeds[1]).toBe(seeds[0]);
    expect(seeds[2]).not.toBe(seeds[0]);
  });
});
