import type { FakeVllm } from './fake-vllm-types';
import { postJson } from './http-test-client';
import { startFakeVllm } from './start-fake-vllm';

const messages = [{ role: 'user', content: 'hi' }];

describe('fake vLLM errors', () => {
  let vllm: FakeVllm;
  beforeAll(async () => {
    vllm = await startFakeVllm({ model: 'base', reply: 'hello', maxModelLen: 64 });
  });
  afterAll(() => vllm.close());

  const chat = (body: unknown, headers?: Record<string, string>) =>
    postJson(`${vllm.url}/chat/completions`, body, headers);

  it('answers an unknown model with 404 and vLLM’s error body', async () => {
    const response = await chat({ model: 'nope', messages });
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text)).toEqual({
      error: {
        message: 'The model `nope` does not exist. Valid aliases: base.',
        type: 'NotFoundError',
        param: 'model',
        code: 404,
      },
    });
  });

  it.each([
    ['a body that is not JSON', '{"model":'],
    ['a body that fails the schema', { model: 'base', messages: [{ role: 'robot', content: 'x' }] }],
    ['n > 1', { model: 'base', messages, n: 2 }],
    ['stream_options without stream', { model: 'base', messages, stream_options: { include_usage: true } }],
  ])('answers %s with 400', async (_name, body) => {
    const response = await chat(body);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({ error: { type: 'Bad Request', code: 400 } });
  });

  it('answers a non-JSON content type with 400', async () => {
    const response = await postJson(`${vllm.url}/chat/completions`, '{}', { 'content-type': 'text/plain' });
    expect(response.status).toBe(400);
    expect(response.text).toContain("Only 'application/json' is allowed");
  });

  it('refuses prompts that do not fit the context window', async () => {
    const tooLong = await chat({ model: 'base', messages: [{ role: 'user', content: 'word '.repeat(80) }] });
    expect(tooLong.status).toBe(400);
    expect(JSON.parse(tooLong.text).error.message).toMatch(/maximum context length is 64 tokens/);

    const tooMany = await chat({ model: 'base', messages, max_tokens: 64 });
    expect(tooMany.status).toBe(400);
    expect(JSON.parse(tooMany.text).error).toMatchObject({ param: 'max_tokens', code: 400 });
  });

  it('answers with a scripted HTTP error', async () => {
    vllm.faultNextRequest({ failWith: { status: 503, message: 'engine overloaded' } });
    const response = await chat({ model: 'base', messages, stream: true });
    expect(response.status).toBe(503);
    expect(JSON.parse(response.text)).toEqual({
      error: { message: 'engine overloaded', type: 'InternalServerError', param: null, code: 503 },
    });
    expect(vllm.requests.at(-1)?.fault).toBe('failWith');
    expect((await chat({ model: 'base', messages })).status).toBe(200);
  });

  it('answers with 500 once the reply queue runs dry', async () => {
    vllm.setReply(['only one']);
    expect((await chat({ model: 'base', messages })).status).toBe(200);
    const dry = await chat({ model: 'base', messages });
    expect(dry.status).toBe(500);
    expect(dry.text).toContain('reply queue is empty');
    vllm.setReply('hello');
  });

  it('answers unknown routes and methods like FastAPI', async () => {
    expect((await fetch(`${vllm.url}/completions/nope`)).status).toBe(404);
    const wrongMethod = await fetch(`${vllm.url}/chat/completions`);
    expect(wrongMethod.status).toBe(405);
  });
});

describe('fake vLLM with an API key', () => {
  let vllm: FakeVllm;
  beforeAll(async () => {
    vllm = await startFakeVllm({ model: 'base', apiKey: 'sk-test', reply: 'hi' });
  });
  afterAll(() => vllm.close());

  it('answers /v1 requests without the right bearer token with 401', async () => {
    const missing = await postJson(`${vllm.url}/chat/completions`, { model: 'base', messages });
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.text)).toEqual({ error: 'Unauthorized' });
    const wrong = await fetch(`${vllm.url}/models`, { headers: { authorization: 'Bearer sk-wrong' } });
    expect(wrong.status).toBe(401);
  });

  it('serves requests that carry the key, and /health without it', async () => {
    const ok = await postJson(
      `${vllm.url}/chat/completions`,
      { model: 'base', messages },
      { authorization: 'Bearer sk-test' },
    );
    expect(ok.status).toBe(200);
    expect((await fetch(vllm.url.replace(/\/v1$/, '/health'))).status).toBe(200);
  });
});
