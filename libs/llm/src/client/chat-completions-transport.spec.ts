import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@echoloop/testing';
import { ChatModelClient, type ChatStreamEvent } from './chat-model-client';
import { ChatCompletionsTransport } from './chat-completions-transport';
import { ModelError } from './model-errors';

/** A bare HTTP server answering every request with `answer`, counting the connections opened to it. */
async function serve(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  let connections = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined),
    server,
  };
}

const chunk = (content: string, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;

const sse = (res: ServerResponse, ...events: string[]) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(events.join(''));
};

describe('ChatCompletionsTransport', () => {
  const servers: { close(): Promise<void>; server: Server }[] = [];
  const transports: ChatCompletionsTransport[] = [];
  const open = (url: string) => {
    const transport = new ChatCompletionsTransport({ baseUrl: url, apiKey: 'secret-key' });
    transports.push(transport);
    return transport;
  };
  const read = async (transport: ChatCompletionsTransport) => {
    const payloads: string[] = [];
    for await (const data of transport.stream({ model: 'm' }, new AbortController().signal))
      payloads.push(data);
    return payloads;
  };

  afterEach(async () => {
    transports.splice(0).forEach((t) => t.close());
    await Promise.all(
      servers.splice(0).map((s) => {
        s.server.closeAllConnections();
        return s.close();
      }),
    );
  });

  it('sends the key and JSON body, and reuses one kept-alive connection for calls one after another', async () => {
    const seen: { auth?: string; type?: string }[] = [];
    const s = await serve((req, res) => {
      seen.push({ auth: req.headers.authorization, type: req.headers['content-type'] });
      sse(res, chunk('hi', 'stop'), 'data: [DONE]\n\n');
    });
    servers.push(s);
    const transport = open(s.url);
    for (let i = 0; i < 3; i++) expect(await read(transport)).toHaveLength(1);
    expect(seen).toEqual(Array(3).fill({ auth: 'Bearer secret-key', type: 'application/json' }));
    expect(s.connections()).toBe(1);
  });

  it('closes a connection idle for keepAliveMs, so the call after the pause opens a new one', async () => {
    const s = await serve((_req, res) => sse(res, chunk('hi', 'stop')));
    servers.push(s);
    let closed = 0;
    s.server.on('connection', (socket) => socket.on('close', () => closed++));
    const transport = new ChatCompletionsTransport({ baseUrl: s.url, apiKey: 'k' }, { keepAliveMs: 100 });
    transports.push(transport);

    await read(transport);
    // Well before the default of 4 s: the setting closed it.
    await waitFor(() => closed === 1, {
      timeoutMs: 2_000,
      intervalMs: 20,
      what: 'the idle connection to close',
    });
    await read(transport);

    expect(s.connections()).toBe(2);
  });

  it('reads events split anywhere and separated by CRLF, without `[DONE]`', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const text = `${chunk('a')}${chunk('b', 'stop')}data: [DONE]\n\n`.replaceAll('\n', '\r\n');
      for (const piece of text.match(/.{1,7}/gs) ?? []) res.write(piece);
      res.end();
    });
    servers.push(s);
    const payloads = await read(open(s.url));
    expect(
      payloads.map(
        (p) => (JSON.parse(p) as { choices: { delta: { content: string } }[] }).choices[0]?.delta.content,
      ),
    ).toEqual(['a', 'b']);
  });

  it("gives the server's own message for an error answer, retryable only for 5xx, 429 and 408", async () => {
    let status = 400;
    const s = await serve((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'prompt too long', type: 'BadRequestError', param: null, code: status },
        }),
      );
    });
    servers.push(s);
    const transport = open(s.url);
    await expect(read(transport)).rejects.toMatchObject({
      code: 'model_rejected',
      retryable: false,
      status: 400,
      message: '400 prompt too long',
    });
    status = 429;
    await expect(read(transport)).rejects.toMatchObject({ code: 'model_unavailable', retryable: true });
  });

  it('an error answer that is not JSON still fails with its status', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(502);
      res.end('<html>bad gateway</html>');
    });
    servers.push(s);
    const error = await read(open(s.url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_unavailable', status: 502 });
    expect((error as Error).message).not.toContain('html');
  });

  it('reads a whole answer, asking for JSON, over one kept-alive connection; an error answer fails the same way', async () => {
    let status = 200;
    const accepted: (string | undefined)[] = [];
    const s = await serve((req, res) => {
      accepted.push(req.headers.accept);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"choices":[]}' : '{"error":{"message":"no such model"}}');
    });
    servers.push(s);
    const transport = open(s.url);
    const signal = new AbortController().signal;
    expect(await transport.complete({ model: 'm', stream: false }, signal)).toBe('{"choices":[]}');
    expect(await transport.complete({ model: 'm', stream: false }, signal)).toBe('{"choices":[]}');
    expect(accepted).toEqual(['application/json', 'application/json']);
    expect(s.connections()).toBe(1);
    status = 404;
    await expect(transport.complete({ model: 'x' }, signal)).rejects.toMatchObject({
      code: 'model_not_served',
      message: '404 no such model',
    });
  });
});

describe('ChatModelClient over a server that is not ours', () => {
  let s: Awaited<ReturnType<typeof serve>>;
  afterEach(async () => {
    s.server.closeAllConnections();
    await s.close();
  });

  const events = async (answer: (req: IncomingMessage, res: ServerResponse) => void) => {
    s = await serve(answer);
    const client = new ChatModelClient([{ baseUrl: s.url, apiKey: 'k' }], {
      firstTokenTimeoutMs: 1_000,
      idleTimeoutMs: 1_000,
      retries: 0,
      breaker: { failureThreshold: 5, cooldownMs: 1_000 },
    });
    const seen: ChatStreamEvent[] = [];
    try {
      for await (const event of client.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }))
        seen.push(event);
      return { seen, error: undefined };
    } catch (error) {
      return { seen, error: error as ModelError };
    }
  };

  it('takes chunks with no content (role-only, empty delta) and a usage chunk with no choices', async () => {
    const { seen, error } = await events((_req, res) =>
      sse(
        res,
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`,
        chunk('Hello'),
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
        `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 1 } })}\n\n`,
        'data: [DONE]\n\n',
      ),
    );
    expect(error).toBeUndefined();
    expect(seen).toEqual([
      { type: 'delta', text: 'Hello' },
      expect.objectContaining({
        type: 'done',
        finishReason: 'stop',
        usage: { promptTokens: 7, completionTokens: 1 },
      }),
    ]);
  });

  it('two replies in a row share one kept-alive connection (read to the end, past [DONE])', async () => {
    s = await serve((_req, res) => sse(res, chunk('Hi', 'stop'), 'data: [DONE]\n\n'));
    const client = new ChatModelClient([{ baseUrl: s.url, apiKey: 'k' }]);
    for (let i = 0; i < 2; i++)
      expect((await client.complete({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).text).toBe(
        'Hi',
      );
    expect(s.connections()).toBe(1);
  });

  it('fails a stream whose server sends an error mid-way, as broken after what it delivered', async () => {
    const { seen, error } = await events((_req, res) =>
      sse(res, chunk('Hel'), `data: ${JSON.stringify({ error: { message: 'engine dead', code: 500 } })}\n\n`),
    );
    expect(seen).toEqual([{ type: 'delta', text: 'Hel' }]);
    expect(error).toMatchObject({ code: 'model_stream_broken', retryable: true, message: 'engine dead' });
  });

  it('fails a stream that ends without a finish reason, and one that is not JSON', async () => {
    expect((await events((_req, res) => sse(res, chunk('Hel')))).error).toMatchObject({
      code: 'model_stream_broken',
    });
    s.server.closeAllConnections();
    await s.close();
    expect((await events((_req, res) => sse(res, 'data: {not json\n\n'))).error).toMatchObject({
      code: 'model_unavailable',
      retryable: true,
    });
  });
});
