import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { createSseDataParser, parseSseData } from '@echoloop/openai-compat';
import OpenAI from 'openai';
import { pino } from 'pino';
import type { ChatEngine, GenerationRequest, GenerationResult } from './chat-engine';
import { createModelServer } from './model-server';

/** Emits the words of the last user message, one per 5 ms, like a model that repeats you. */
class EchoEngine implements ChatEngine {
  readonly contextSize = 64;
  readonly calls: GenerationRequest[] = [];
  active = 0;
  maxActive = 0;

  countPromptTokens(messages: GenerationRequest['messages']): number {
    return messages.reduce((total, message) => total + message.content.split(' ').length + 2, 1);
  }

  async prepareResponseFormat(): Promise<void> {}

  async loadAdapter(): Promise<void> {}

  async unloadAdapter(): Promise<void> {}

  async generate(request: GenerationRequest): Promise<GenerationResult> {
    this.calls.push(request);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      const words = (request.messages.at(-1)?.content ?? '').split(' ');
      let text = '';
      let tokens = 0;
      for (const [index, word] of words.entries()) {
        if (tokens === request.maxTokens)
          return { text, finish: { reason: 'length' }, completionTokens: tokens, aborted: false };
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (request.signal.aborted)
          return { text, finish: { reason: 'stop' }, completionTokens: tokens, aborted: true };
        const piece = index === 0 ? word : ` ${word}`;
        request.onText(piece);
        text += piece;
        tokens += 1;
      }
      return {
        text,
        finish: { reason: 'stop', stopReason: null },
        completionTokens: tokens + 1,
        aborted: false,
      };
    } finally {
      this.active -= 1;
    }
  }
}

describe('model server HTTP layer', () => {
  let engine: EchoEngine;
  let server: Server;
  let baseUrl: string;
  let logLines: Array<Record<string, unknown>>;

  beforeEach(async () => {
    engine = new EchoEngine();
    logLines = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(
          ...chunk
            .toString()
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line)),
        );
        done();
      },
    });
    server = createModelServer({
      engine,
      modelName: 'tiny',
      modelRoot: '/models/tiny.gguf',
      logger: pino(destination),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const client = () => new OpenAI({ baseURL: `${baseUrl}/v1`, apiKey: 'unused', maxRetries: 0 });
  const post = (body: unknown) =>
    fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('serves /health and the model list', async () => {
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    const models = await client().models.list();
    expect(models.data).toEqual([
      expect.objectContaining({ id: 'tiny', root: '/models/tiny.gguf', parent: null, max_model_len: 64 }),
    ]);
  });

  it('streams role, deltas, a finish chunk, usage and [DONE]', async () => {
    const response = await post({
      model: 'tiny',
      messages: [{ role: 'user', content: 'one two three' }],
      stream: true,
      stream_options: { include_usage: true },
      stop: ['END'],
      temperature: 0,
      seed: 7,
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const payloads = parseSseData(await response.text());
    expect(payloads.at(-1)).toBe('[DONE]');
    const chunks = payloads.slice(0, -1).map((payload) => JSON.parse(payload));
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { content: 'one' },
      { content: ' two' },
      { content: ' three' },
      { content: '' },
      null,
    ]);
    expect(chunks[4].choices[0]).toMatchObject({ finish_reason: 'stop' });
    expect(chunks[5]).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 },
    });
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
    expect(engine.calls[0]).toMatchObject({ stop: ['END'], temperature: 0, seed: 7, maxTokens: 64 - 6 });
  });

  it('answers without streaming, capped by max_tokens', async () => {
    const completion = await client().chat.completions.create({
      model: 'tiny',
      messages: [{ role: 'user', content: 'one two three' }],
      max_tokens: 2,
    });
    expect(completion.choices[0]).toMatchObject({ message: { content: 'one two' }, finish_reason: 'length' });
    expect(completion.usage).toMatchObject({ prompt_tokens: 6, completion_tokens: 2, total_tokens: 8 });
  });

  it('refuses bad input with vLLM-shaped 400s and unknown models with 404', async () => {
    const invalid = await post({ model: 'tiny', messages: [{ role: 'user' }] });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { code: 400, param: 'body.messages.0.content' } });
    const tooLong = await post({ model: 'tiny', messages: [{ role: 'user', content: 'x' }], max_tokens: 64 });
    expect(tooLong.status).toBe(400);
    expect((await post({ model: 'other', messages: [{ role: 'user', content: 'x' }] })).status).toBe(404);
    expect(engine.calls).toHaveLength(0);
  });

  it('answers a batch of conversations (vLLM /chat/completions/batch), one choice each, refused as a whole', async () => {
    const batch = (body: unknown) =>
      fetch(`${baseUrl}/v1/chat/completions/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const answered = await batch({
      model: 'tiny',
      messages: [[{ role: 'user', content: 'one two three' }], [{ role: 'user', content: 'four' }]],
      max_tokens: 2,
    });
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as {
      choices: { index: number; message: { content: string }; finish_reason: string }[];
      usage: { completion_tokens: number };
    };
    expect(body.choices.map((c) => [c.index, c.message.content, c.finish_reason])).toEqual([
      [0, 'one two', 'length'],
      [1, 'four', 'stop'],
    ]);
    expect(body.usage.completion_tokens).toBe(4);
    expect(engine.maxActive).toBe(1);

    const calls = engine.calls.length;
    const refused = await batch({
      model: 'tiny',
      messages: [[{ role: 'user', content: 'fine' }], [{ role: 'user', content: 'x' }]],
      max_tokens: 64,
    });
    expect(refused.status).toBe(400);
    expect(
      (await batch({ model: 'tiny', messages: [[{ role: 'user', content: 'x' }]], stream: true })).status,
    ).toBe(400);
    expect(engine.calls).toHaveLength(calls);
  });

  it('generates for one request at a time', async () => {
    const messages = [{ role: 'user', content: 'a b c d' }];
    await Promise.all(
      [1, 2, 3].map(() => post({ model: 'tiny', messages }).then((response) => response.text())),
    );
    expect(engine.calls).toHaveLength(3);
    expect(engine.maxActive).toBe(1);
  });

  it('stops generating when the client disconnects', async () => {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tiny',
        messages: [{ role: 'user', content: 'w '.repeat(40).trim() }],
        stream: true,
      }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    const parser = createSseDataParser();
    let received = 0;
    while (received < 3) {
      const { value } = (await reader?.read()) ?? {};
      received += parser.push(new TextDecoder().decode(value)).length;
    }
    controller.abort();
    await waitFor(() => logLines.some((line) => line['aborted'] === true));
    expect(engine.calls[0]?.signal.aborted).toBe(true);
    expect(logLines.find((line) => line['aborted'] === true)).toMatchObject({ finishReason: 'abort' });
  });

  it('logs one JSON line per request', async () => {
    await post({ model: 'tiny', messages: [{ role: 'user', content: 'hi there' }] }).then((response) =>
      response.text(),
    );
    await fetch(`${baseUrl}/nope`);
    await waitFor(() => logLines.length === 2);
    expect(logLines[0]).toMatchObject({
      msg: 'request',
      method: 'POST',
      path: '/v1/chat/completions',
      status: 200,
      model: 'tiny',
      stream: false,
      promptTokens: 5,
      completionTokens: 3,
      finishReason: 'stop',
    });
    expect(typeof logLines[0]?.['durationMs']).toBe('number');
    expect(logLines[1]).toMatchObject({ path: '/nope', status: 404 });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
