import type { FakeVllm } from './fake-vllm-types';
import { postJson } from './http-test-client';
import { startFakeVllm } from './start-fake-vllm';

const conversation = (content: string) => [{ role: 'user', content }];

/** vLLM's /v1/chat/completions/batch: a list of conversations, one choice each, refused as a whole. */
describe('fake vLLM batch chat completions', () => {
  let vllm: FakeVllm;
  beforeAll(async () => {
    vllm = await startFakeVllm({ model: 'base', maxModelLen: 64 });
  });
  afterAll(() => vllm.close());

  const batch = (body: unknown) => postJson(`${vllm.url}/chat/completions/batch`, body);

  it('answers conversation i with choice i, and gives the usage of the whole batch', async () => {
    const response = await batch({
      model: 'base',
      messages: [conversation('one'), conversation('two words'), conversation('three')],
      max_tokens: 8,
    });
    expect(response.status).toBe(200);
    const body = JSON.parse(response.text) as {
      object: string;
      choices: { index: number; message: { content: string }; finish_reason: string }[];
      usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    };
    expect(body.object).toBe('chat.completion');
    expect(body.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, 'one', 'stop'],
      [1, 'two words', 'stop'],
      [2, 'three', 'stop'],
    ]);
    expect(body.usage.completion_tokens).toBeGreaterThanOrEqual(4);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('refuses the whole batch when one conversation is refused, as vLLM does', async () => {
    const tooLong = await batch({
      model: 'base',
      messages: [conversation('fine'), conversation('word '.repeat(200))],
    });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text).error.message).toMatch(/maximum context length/);
    expect((await batch({ model: 'nope', messages: [conversation('x')] })).status).toBe(404);
  });

  it('refuses streaming, a single conversation where a list is expected, and an empty batch', async () => {
    for (const body of [
      { model: 'base', messages: [conversation('x')], stream: true },
      { model: 'base', messages: conversation('x') },
      { model: 'base', messages: [] },
    ]) {
      const response = await batch(body);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.text).error).toMatchObject({ code: 400 });
    }
  });
});
