import type { ChatMessage } from '@echoloop/vocabulary';
import type { CharacterCard } from '@echoloop/character-cards';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type FakeVllm, startFakeVllm } from '@echoloop/testing';
import { conversationSeed, episodeDeps, simulatorDeps } from './model-calls';

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

  it("seeds the policy's call by what it is shown too: two checkpoints answer the same history from the same draws", async () => {
    const policy = await startFakeVllm({ model: 'default', reply: () => 'I hear you.' });
    try {
      await fetch(`${policy.url}/load_lora_adapter`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lora_name: 'candidate', lora_path: '/adapters/candidate' }),
      });
      const target = (model: string) => ({
        baseUrl: policy.url,
        apiKey: 'k',
        model,
        contextTokens: 2048,
        maxTokens: 32,
      });
      const card = JSON.parse(
        readFileSync(path.join(__dirname, '../../../../data/characters/echo.card.json'), 'utf8'),
      ) as CharacterCard;
      const history = (text: string): ChatMessage[] => [{ role: 'user', content: text }];
      for (const model of ['candidate', 'default']) {
        const deps = episodeDeps(target(model), target('simulator'), card)();
        await deps.policy(history('I moved and I know nobody.'));
        await deps.policy(history('My cat died.'));
      }
      const seeds = policy.requests
        .filter((r) => r.path.endsWith('/chat/completions'))
        .map((r) => r.body as { model: string; seed?: number });
      expect(seeds.map((r) => r.model)).toEqual(['candidate', 'candidate', 'default', 'default']);
      expect(seeds[0]?.seed).toEqual(expect.any(Number));
      expect(seeds[2]?.seed).toBe(seeds[0]?.seed);
      expect(seeds[3]?.seed).toBe(seeds[1]?.seed);
      expect(seeds[1]?.seed).not.toBe(seeds[0]?.seed);
    } finally {
      await policy.close();
    }
  });
});
