import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResponseFormat } from '@echoloop/openai-compat';
import { parseSseData } from '@echoloop/openai-compat';
import { pino } from 'pino';
import {
  ResponseFormatError,
  type ChatEngine,
  type GenerationRequest,
  type GenerationResult,
} from './chat-engine';
import { createModelServer } from './model-server';

/** Answers `{"ok":true}` and refuses any schema titled "unsupported", as a grammar compiler might. */
class JsonEngine implements ChatEngine {
  readonly contextSize = 64;
  readonly prepared: ResponseFormat[] = [];
  readonly calls: GenerationRequest[] = [];

  countPromptTokens(): number {
    return 5;
  }

  async prepareResponseFormat(format: ResponseFormat): Promise<void> {
    this.prepared.push(format);
    if (format.type === 'json_schema' && format.json_schema.schema?.['title'] === 'unsupported') {
      throw new ResponseFormatError('Invalid JSON schema at response_format.json_schema.schema: unsupported');
    }
  }

  async loadAdapter(): Promise<void> {}

  async unloadAdapter(): Promise<void> {}

  async generate(request: GenerationRequest): Promise<GenerationResult> {
    this.calls.push(request);
    request.onText('{"ok":true}');
    return {
      text: '{"ok":true}',
      finish: { reason: 'stop', stopReason: null },
      completionTokens: 4,
      aborted: false,
    };
  }
}

const schema = {
  type: 'object',
  properties: { ok: { type: 'boolean' } },
  required: ['ok'],
  additionalProperties: false,
};
const jsonSchemaFormat = { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } };
const messages = [{ role: 'user', content: 'answer in JSON' }];

describe('model server response_format', () => {
  let engine: JsonEngine;
  let server: Server;
  let baseUrl: string;

  beforeEach(async () => {
    engine = new JsonEngine();
    server = createModelServer({
      engine,
      modelName: 'tiny',
      modelRoot: '/models/tiny.gguf',
      logger: pino({ level: 'silent' }),
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const post = (body: Record<string, unknown>) =>
    fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tiny', messages, ...body }),
    });

  it.each([
    ['json_schema', jsonSchemaFormat],
    ['json_object', { type: 'json_object' }],
    ['text', { type: 'text' }],
  ])('prepares and passes a %s response_format to the engine', async (_name, responseFormat) => {
    const response = await post({ response_format: responseFormat });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: '{"ok":true}' } }] });
    expect(engine.prepared).toEqual([responseFormat]);
    expect(engine.calls[0]?.responseFormat).toEqual(responseFormat);
  });

  it('leaves responseFormat out when the request has none', async () => {
    expect((await post({ response_format: null })).status).toBe(200);
    expect((await post({})).status).toBe(200);
    expect(engine.prepared).toEqual([]);
    expect(engine.calls.map((call) => 'responseFormat' in call)).toEqual([false, false]);
  });

  it('streams a guided completion', async () => {
    const response = await post({ response_format: jsonSchemaFormat, stream: true });
    const payloads = parseSseData(await response.text());
    const content = payloads
      .slice(0, -1)
      .map((payload) => JSON.parse(payload).choices[0]?.delta.content ?? '')
      .join('');
    expect(JSON.parse(content)).toEqual({ ok: true });
  });

  it.each([false, true])('answers a schema the engine refuses with a 400 (stream: %s)', async (stream) => {
    const refused = {
      ...jsonSchemaFormat,
      json_schema: { name: 'x', schema: { ...schema, title: 'unsupported' } },
    };
    const response = await post({ response_format: refused, stream });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      error: {
        code: 400,
        type: 'BadRequestError',
        param: null,
        message: 'Invalid JSON schema at response_format.json_schema.schema: unsupported',
      },
    });
    expect(engine.calls).toHaveLength(0);
  });

  it('answers a malformed response_format with a validation 400', async () => {
    const response = await post({ response_format: { type: 'json_schema', json_schema: { schema } } });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 400, type: 'Bad Request', param: 'body.response_format.json_schema.name' },
    });
    expect(engine.prepared).toHaveLength(0);
  });
});
