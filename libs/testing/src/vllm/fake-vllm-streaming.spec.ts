import type { FakeVllm } from './fake-vllm-types';
import { jsonChunks, postJson, postStreaming } from './http-test-client';
import { startFakeVllm } from './start-fake-vllm';
import { countPromptTokens } from './word-piece-tokenizer';

const messages = [
  { role: 'system' as const, content: 'You are Mira, a warm companion.' },
  { role: 'user' as const, content: 'How was your day?' },
];
const reply = 'It was lovely, thank you for asking!';

describe('fake vLLM streaming', () => {
  let vllm: FakeVllm;
  beforeAll(async () => {
    vllm = await startFakeVllm({ model: 'base', reply });
  });
  afterAll(() => vllm.close());

  const url = () => `${vllm.url}/chat/completions`;

  it('streams SSE the way vLLM does, usage chunk last before [DONE]', async () => {
    const { status, headers, payloads } = await postStreaming(url(), {
      model: 'base',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(payloads.at(-1)).toBe('[DONE]');

    const chunks = jsonChunks(payloads);
    const [first] = chunks;
    expect(first).toMatchObject({
      object: 'chat.completion.chunk',
      model: 'base',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    });
    expect(String(first?.['id'])).toMatch(/^chatcmpl-/);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        id: first?.['id'],
        created: first?.['created'],
        model: 'base',
        object: 'chat.completion.chunk',
      });
    }

    const contentChunks = chunks.slice(1, -1);
    expect(contentChunks.map((chunk) => choiceOf(chunk)['delta'])).toEqual([
      { content: 'It' },
      { content: ' was' },
      { content: ' lovely,' },
      { content: ' thank' },
      { content: ' you' },
      { content: ' for' },
      { content: ' asking!' },
    ]);
    expect(contentChunks.slice(0, -1).every((chunk) => choiceOf(chunk)['finish_reason'] === null)).toBe(true);
    expect(choiceOf(contentChunks.at(-1))['finish_reason']).toBe('stop');

    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: countPromptTokens(messages),
        completion_tokens: 7,
        total_tokens: countPromptTokens(messages) + 7,
      },
    });
  });

  it('sends no usage chunk unless include_usage is asked for', async () => {
    const { payloads } = await postStreaming(url(), { model: 'base', messages, stream: true });
    const chunks = jsonChunks(payloads);
    expect(chunks.some((chunk) => 'usage' in chunk)).toBe(false);
    expect(choiceOf(chunks.at(-1))['finish_reason']).toBe('stop');
    expect(payloads.at(-1)).toBe('[DONE]');
  });

  it('stops at max_tokens with finish_reason length', async () => {
    const { payloads } = await postStreaming(url(), {
      model: 'base',
      messages,
      stream: true,
      max_tokens: 3,
      stream_options: { include_usage: true },
    });
    const chunks = jsonChunks(payloads);
    expect(contentOf(chunks)).toBe('It was lovely,');
    expect(choiceOf(chunks.at(-2))['finish_reason']).toBe('length');
    expect(chunks.at(-1)?.['usage']).toMatchObject({ completion_tokens: 3 });
  });

  it('stops at a stop sequence, leaving it out of the content', async () => {
    const { payloads } = await postStreaming(url(), {
      model: 'base',
      messages,
      stream: true,
      stop: ['thank'],
      stream_options: { include_usage: true },
    });
    const chunks = jsonChunks(payloads);
    expect(contentOf(chunks)).toBe('It was lovely, ');
    expect(choiceOf(chunks.at(-2))).toMatchObject({ finish_reason: 'stop', stop_reason: 'thank' });
    expect(chunks.at(-1)?.['usage']).toMatchObject({ completion_tokens: 4 });
  });

  it('can play a model that writes past its stop strings, to test what the client does about it', async () => {
    vllm.faultNextRequest({ ignoreStop: true });
    const { payloads } = await postStreaming(url(), {
      model: 'base',
      messages,
      stream: true,
      stop: ['thank'],
    });
    expect(contentOf(jsonChunks(payloads))).toBe(reply);
  });

  it('answers without streaming when stream is not set', async () => {
    const response = await postJson(url(), { model: 'base', messages, max_tokens: 2 });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(response.text)).toMatchObject({
      object: 'chat.completion',
      model: 'base',
      choices: [{ index: 0, message: { role: 'assistant', content: 'It was' }, finish_reason: 'length' }],
      usage: { prompt_tokens: countPromptTokens(messages), completion_tokens: 2 },
    });
  });

  it('records every request with its body and headers', async () => {
    await postJson(
      url(),
      { model: 'base', messages, temperature: 0.3, custom_field: 1 },
      { 'x-trace': 'abc' },
    );
    const recorded = vllm.requests.at(-1);
    expect(recorded).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      status: 200,
      aborted: false,
      completed: true,
      body: { model: 'base', temperature: 0.3, custom_field: 1 },
    });
    expect(recorded?.headers['x-trace']).toBe('abc');
  });
});

function choiceOf(chunk: Record<string, unknown> | undefined): Record<string, unknown> {
  const choices = chunk?.['choices'] as Array<Record<string, unknown>> | undefined;
  const choice = choices?.[0];
  if (!choice) throw new Error(`chunk without a choice: ${JSON.stringify(chunk)}`);
  return choice;
}

function contentOf(chunks: ReadonlyArray<Record<string, unknown>>): string {
  return chunks
    .filter((chunk) => (chunk['choices'] as unknown[]).length > 0)
    .map((chunk) => (choiceOf(chunk)['delta'] as { content: string }).content)
    .join('');
}
