import { ModelError, SideWorkLane } from '@echoloop/llm';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JudgeClient } from './judge-client';
import { waitFor } from '@echoloop/testing';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A plain HTTP server standing in for the judge endpoint, counting the connections it accepted. */
async function judgeServer(handler: Handler) {
  const requests: { url: string | undefined; headers: IncomingMessage['headers']; body: unknown }[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      requests.push({ url: req.url, headers: req.headers, body: JSON.parse(body) as unknown });
      handler(req, body, res);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1/`,
    requests,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const answer = (text: string) =>
  JSON.stringify({
    choices: [{ message: { content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 3 },
  });

const request = {
  model: 'judge',
  messages: [{ role: 'user' as const, content: 'Rate this reply.' }],
  maxTokens: 64,
  temperature: 0,
};

describe('JudgeClient', () => {
  let server: Awaited<ReturnType<typeof judgeServer>> | undefined;
  let client: JudgeClient | undefined;
  const connect = (handler: Handler, timeoutMs = 5_000) =>
    judgeServer(handler).then((started) => {
      server = started;
      client = new JudgeClient({
        baseUrl: started.baseUrl,
        apiKey: 'secret',
        timeoutMs,
        maxSockets: 2,
        breaker: { failureThreshold: 100, cooldownMs: 1_000 },
      });
      return client;
    });

  afterEach(async () => {
    client?.close();
    await server?.close();
  });

  it('posts one non-streaming chat completion and reads the answer whole', async () => {
    const judge = await connect((_req, _body, res) => res.end(answer('Fine.\nVerdict: 4')));

    await expect(judge.complete(request)).resolves.toEqual({
      text: 'Fine.\nVerdict: 4',
      finishReason: 'stop',
      usage: { promptTokens: 12, completionTokens: 3 },
    });
    expect(server?.requests[0]).toMatchObject({
      url: '/v1/chat/completions',
      headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
      body: { model: 'judge', messages: request.messages, stream: false, max_tokens: 64, temperature: 0 },
    });
  });

  it('keeps its sockets open: many calls, at most maxSockets connections', async () => {
    const judge = await connect((_req, _body, res) => res.end(answer('ok')));

    for (let round = 0; round < 3; round++)
      await Promise.all(Array.from({ length: 10 }, () => judge.complete(request)));

    expect(server?.requests).toHaveLength(30);
    expect(server?.connections()).toBeLessThanOrEqual(2);
  });

  it('says why the judge refused: a 4xx is rejected, a 5xx is a retryable outage', async () => {
    let status = 400;
    const judge = await connect((_req, _body, res) => {
      res.statusCode = status;
      res.end(JSON.stringify({ error: { message: 'prompt too long' } }));
    });

    await expect(judge.complete(request)).rejects.toMatchObject({
      code: 'model_rejected',
      message: '400 prompt too long',
      retryable: false,
    });
    status = 503;
    await expect(judge.complete(request)).rejects.toMatchObject({
      code: 'model_unavailable',
      retryable: true,
    });
  });

  it('steps aside for a user’s reply: the batch is sent again once the engine is free, and is no judge failure', async () => {
    let running = 0; // requests on the engine: the held batch until its client gives it up, and users' replies
    const started = await judgeServer((_req, _body, res) => {
      if (started.requests.length > 1)
        return void res.end(
          JSON.stringify({ choices: [0, 1].map((index) => ({ index, message: { content: `#${index}` } })) }),
        );
      running += 2;
      res.on('close', () => (running -= 2));
    });
    server = started;
    const lane = new SideWorkLane(async () => running, { concurrency: 1, maxWaitMs: 60_000, pollMs: 10 });
    client = new JudgeClient({
      baseUrl: started.baseUrl,
      apiKey: 'secret',
      timeoutMs: 5_000,
      maxSockets: 2,
      // One failure would open the circuit and refuse the second send.
      breaker: { failureThreshold: 1, cooldownMs: 60_000 },
      lane,
    });

    const batch = client.completeBatch([request, request]);
    await waitFor(() => running === 2, { what: 'the batch on the engine' });
    running += 1; // a user's reply arrives
    await waitFor(() => running === 1, { what: 'the batch aborted' });
    running -= 1; // the reply is done

    await expect(batch).resolves.toMatchObject([{ text: '#0' }, { text: '#1' }]);
    expect(started.requests.map((r) => r.url)).toEqual([
      '/v1/chat/completions/batch',
      '/v1/chat/completions/batch',
    ]);
  });

  it('gives up on a judge that does not answer within the timeout', async () => {
    const judge = await connect(() => undefined, 200);

    const error = await judge.complete(request).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_timeout', retryable: true });
  });

  it('an unreachable judge is an outage', async () => {
    const judge = await connect((_req, _body, res) => res.end(answer('ok')));
    await server?.close();
    server = undefined;

    await expect(judge.complete(request)).rejects.toMatchObject({ code: 'model_unavailable' });
  });
});
