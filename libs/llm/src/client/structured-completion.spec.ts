import { replyQueue, startFakeVllm, type FakeVllm } from '@echoloop/testing';
import { ChatModelClient } from './chat-model-client';
import { completeStructured, type Parsed } from './structured-completion';

const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
const request = {
  model: 'fake-base-model',
  messages: [{ role: 'user' as const, content: 'Give me a number as JSON.' }],
  maxTokens: 100,
  responseFormat: { type: 'json_schema' as const, json_schema: { name: 'number', schema } },
};

function parseNumber(text: string): Parsed<number> {
  try {
    const value = (JSON.parse(text) as { n?: unknown }).n;
    return typeof value === 'number'
      ? { ok: true, value }
      : { ok: false, problem: 'schema', detail: 'n missing' };
  } catch {
    return { ok: false, problem: 'json', detail: 'not JSON' };
  }
}

describe('completeStructured', () => {
  let server: FakeVllm;
  afterEach(() => server.close());
  const run = async (replies: string[]) => {
    server = await startFakeVllm({ reply: replyQueue(replies) });
    const client = new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }]);
    return completeStructured(client, request, {
      parse: parseNumber,
      correction: (detail) => `Invalid: ${detail}. JSON only.`,
    });
  };

  it('sends the JSON schema as response_format and returns the parsed value', async () => {
    await expect(run(['{"n": 7}'])).resolves.toEqual({ ok: true, value: 7, attempts: 1, raw: '{"n": 7}' });
    expect(server.requests[0]?.body).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'number', schema } },
    });
  });

  it('retries once, telling the model what was wrong, within the same context budget', async () => {
    await expect(run(['sure! n is 7', '{"n": 7}'])).resolves.toEqual({
      ok: true,
      value: 7,
      attempts: 2,
      raw: '{"n": 7}',
    });
    const retry = server.requests[1]?.body as {
      messages: { role: string; content: string }[];
      max_tokens: number;
    };
    expect(retry.messages).toEqual([
      { role: 'user', content: 'Give me a number as JSON.\n\nInvalid: not JSON. JSON only.' },
    ]);
    expect(retry.max_tokens).toBeLessThan(100);
  });

  it('gives up after the retry and returns the failure with the last output, not an exception', async () => {
    await expect(run(['nope', '{"m": 1}'])).resolves.toEqual({
      ok: false,
      problem: 'schema',
      detail: 'n missing',
      attempts: 2,
      raw: '{"m": 1}',
    });
    expect(server.requests).toHaveLength(2);
  });
});
