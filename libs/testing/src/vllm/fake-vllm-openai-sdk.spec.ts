import OpenAI from 'openai';
import type { FakeVllm } from './fake-vllm-types';
import { startFakeVllm } from './start-fake-vllm';
import { countPromptTokens } from './word-piece-tokenizer';

const messages = [
  { role: 'system' as const, content: 'You are Mira.' },
  { role: 'user' as const, content: 'Say something nice.' },
];

describe('fake vLLM through the openai SDK', () => {
  let vllm: FakeVllm;
  let client: OpenAI;
  beforeAll(async () => {
    vllm = await startFakeVllm({ model: 'base', apiKey: 'sk-fake', reply: 'You are doing great today.' });
    client = new OpenAI({ baseURL: vllm.url, apiKey: 'sk-fake', maxRetries: 0 });
  });
  afterAll(() => vllm.close());

  it('streams deltas and a final usage chunk with stream_options.include_usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'base',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    const finishReasons: Array<string | null> = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        deltas.push(choice.delta.content ?? '');
        finishReasons.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(deltas.join('')).toBe('You are doing great today.');
    expect(deltas.filter(Boolean)).toHaveLength(5);
    expect(finishReasons.at(-1)).toBe('stop');
    expect(usage).toEqual({
      prompt_tokens: countPromptTokens(messages),
      completion_tokens: 5,
      total_tokens: countPromptTokens(messages) + 5,
    });
    expect(vllm.requests.at(-1)?.headers.authorization).toBe('Bearer sk-fake');
  });

  it('returns a whole completion without streaming', async () => {
    const completion = await client.chat.completions.create({ model: 'base', messages, max_tokens: 2 });
    expect(completion.choices[0]?.message.content).toBe('You are');
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(2);
  });

  it('surfaces vLLM errors as typed SDK errors', async () => {
    const unknownModel = client.chat.completions.create({ model: 'ghost', messages });
    await expect(unknownModel).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(unknownModel).rejects.toMatchObject({
      status: 404,
      message: '404 The model `ghost` does not exist. Valid aliases: base.',
    });

    const badKey = new OpenAI({ baseURL: vllm.url, apiKey: 'sk-wrong', maxRetries: 0 });
    await expect(badKey.chat.completions.create({ model: 'base', messages })).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
  });

  it('lets the SDK abort a stream, which the server records', async () => {
    vllm.faultNextRequest({ tokensPerSecond: 10 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'base', messages, stream: true },
      { signal: controller.signal },
    );
    const received: string[] = [];
    // The SDK ends the iteration quietly when its own signal aborts it.
    for await (const chunk of stream) {
      received.push(chunk.choices[0]?.delta.content ?? '');
      if (received.length === 2) controller.abort();
    }
    expect(received).toHaveLength(2);
    await vllm.whenIdle();
    expect(vllm.requests.at(-1)).toMatchObject({ aborted: true, completed: false });
  });
});
