import { replyWith, startFakeVllm, waitFor, type FakeVllm } from '@echoloop/testing';
import { z } from 'zod';
import {
  ChatModelClient,
  type ChatModelClientOptions,
  type ChatStreamEvent,
  MODEL_PRIORITY,
} from './chat-model-client';
import { ModelError } from './model-errors';
import { SideWorkLanes, sideWorkEnv } from './side-work-lane';

const options: ChatModelClientOptions = {
  firstTokenTimeoutMs: 300,
  idleTimeoutMs: 300,
  retries: 1,
  breaker: { failureThreshold: 2, cooldownMs: 60_000 },
};
const request = { model: 'fake-base-model', messages: [{ role: 'user' as const, content: 'hello there' }] };

async function collect(stream: AsyncIterable<ChatStreamEvent>) {
  const events: ChatStreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error: error as ModelError };
  }
}

const text = (events: ChatStreamEvent[]) => events.map((e) => (e.type === 'delta' ? e.text : '')).join('');

describe('ChatModelClient against a vLLM-compatible server', () => {
  const servers: FakeVllm[] = [];
  const serve = async (...args: Parameters<typeof startFakeVllm>) => {
    const server = await startFakeVllm(...args);
    servers.push(server);
    return server;
  };
  const client = (...urls: string[]) =>
    new ChatModelClient(
      urls.map((baseUrl) => ({ baseUrl, apiKey: 'k' })),
      options,
    );

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('streams deltas, then finish reason and usage', async () => {
    const server = await serve({ reply: replyWith('I hear you. That sounds hard.') });
    const { events, error } = await collect(client(server.url).stream({ ...request, maxTokens: 64 }));
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === 'delta').length).toBeGreaterThan(1);
    expect(text(events)).toBe('I hear you. That sounds hard.');
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      finishReason: 'stop',
      usage: { completionTokens: expect.any(Number) },
    });
    const body = server.requests.at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 64 });
  });

  it('sends a background call’s priority to the engine, and none for a user’s reply', async () => {
    const server = await serve({ reply: replyWith('ok') });
    await collect(client(server.url).stream({ ...request, priority: MODEL_PRIORITY.scoring }));
    await collect(client(server.url).stream({ ...request, priority: MODEL_PRIORITY.reply }));
    const [scored, reply] = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(scored).toMatchObject({ priority: 2 });
    expect(reply).not.toHaveProperty('priority');
  });

  it('sends a sampling seed only when the request has one', async () => {
    const server = await serve({ reply: replyWith('ok') });
    await collect(client(server.url).stream({ ...request, seed: 0 }));
    await collect(client(server.url).stream(request));
    const [seeded, plain] = server.requests.map((r) => r.body as Record<string, unknown>);
    expect(seeded).toMatchObject({ seed: 0 });
    expect(plain).not.toHaveProperty('seed');
  });

  it('reports length when max_tokens cut the reply', async () => {
    const server = await serve({ reply: replyWith('one two three four five six seven eight') });
    const { events } = await collect(client(server.url).stream({ ...request, maxTokens: 3 }));
    expect(events.at(-1)).toMatchObject({ type: 'done', finishReason: 'length' });
  });

  it('gives up on a server that never sends a first token, as a retryable timeout', async () => {
    const server = await serve({ faults: { delayBeforeFirstTokenMs: 5_000 } });
    const started = Date.now();
    const { events, error } = await collect(client(server.url).stream(request));
    expect(events).toEqual([]);
    expect(error).toMatchObject({ code: 'model_timeout', retryable: true });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('gives up on a stream that stalls after some tokens, without retrying', async () => {
    const server = await serve({ reply: replyWith('a b c d e f g h'), faults: { stallAfterTokens: 2 } });
    const { events, error } = await collect(client(server.url).stream(request));
    expect(text(events).length).toBeGreaterThan(0);
    expect(error).toMatchObject({ code: 'model_stream_broken', retryable: true });
    expect(server.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(1);
  });

  it('lets a slow stream run longer than the idle timeout while no gap is', async () => {
    // 12 tokens 50 ms apart: 600 ms in all against a 300 ms idle timeout.
    const server = await serve({
      reply: replyWith('a b c d e f g h i j k l'),
      faults: { tokensPerSecond: 20 },
    });
    const { events, error } = await collect(client(server.url).stream(request));
    expect(error).toBeUndefined();
    expect(text(events)).toBe('a b c d e f g h i j k l');
  });

  it('retries a failure before the first token on the next endpoint', async () => {
    const broken = await serve({ faults: { failWith: { status: 503, message: 'overloaded' } } });
    const healthy = await serve({ reply: replyWith('fine') });
    const { events, error } = await collect(client(broken.url, healthy.url).stream(request));
    expect(error).toBeUndefined();
    expect(text(events)).toBe('fine');
    expect(events.at(-1)).toMatchObject({ endpoint: healthy.url });
  });

  it('does not retry a request the server rejects', async () => {
    const server = await serve({ faults: { failWith: { status: 400, message: 'bad prompt' } } });
    // Time enough for the answer on a loaded machine: a timeout would be retried, which is not what this is about.
    const patient = new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }], {
      ...options,
      firstTokenTimeoutMs: 10_000,
    });
    const { error } = await collect(patient.stream(request));
    expect(error).toMatchObject({ code: 'model_rejected', retryable: false, status: 400 });
    expect(server.requests).toHaveLength(1);
  });

  it('opens the circuit after repeated failures and fails fast without calling the endpoint', async () => {
    const server = await serve({ faults: { failWith: { status: 500, message: 'boom' } } });
    const c = client(server.url);
    await collect(c.stream(request));
    const before = server.requests.length;
    const { error } = await collect(c.stream(request));
    expect(error).toMatchObject({ code: 'model_unavailable', retryable: true });
    expect(server.requests.length).toBe(before);
  });

  it('a rejected probe does not lock a recovered endpoint out', async () => {
    const server = await serve({
      reply: replyWith('back'),
      faults: { failWith: { status: 500, message: 'boom' } },
    });
    const c = new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }], {
      ...options,
      retries: 0,
      breaker: { failureThreshold: 1, cooldownMs: 10 },
    });
    await collect(c.stream(request));
    await new Promise((resolve) => setTimeout(resolve, 20));
    server.setFaults({ failWith: { status: 400, message: 'prompt too long' } });
    expect((await collect(c.stream(request))).error).toMatchObject({ code: 'model_rejected' });
    server.setFaults(undefined);
    const { error, events } = await collect(c.stream(request));
    expect(error).toBeUndefined();
    expect(text(events)).toBe('back');
  });

  describe('settles the half-open trial on every path', () => {
    let now = 0;
    const tripped = async (reply: string) => {
      const server = await serve({
        reply: replyWith(reply),
        faults: { failWith: { status: 500, message: 'boom' } },
      });
      const c = new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }], {
        ...options,
        retries: 0,
        breaker: { failureThreshold: 1, cooldownMs: 1_000, now: () => now },
      });
      now = 0;
      await collect(c.stream(request));
      server.setFaults(undefined);
      now = 1_000;
      return { server, c };
    };
    const recovered = async (c: ChatModelClient) => {
      const twice = await Promise.all([collect(c.stream(request)), collect(c.stream(request))]);
      return twice.map(({ error, events }) => error?.code ?? text(events));
    };

    it('a trial made with complete(), which stops reading at done, closes the circuit', async () => {
      const { c } = await tripped('back');
      expect((await c.complete(request)).text).toBe('back');
      expect(await recovered(c)).toEqual(['back', 'back']);
    });

    it('a trial whose caller breaks out after the first token frees the way for the next trial', async () => {
      const { c } = await tripped('back again');
      for await (const event of c.stream(request)) if (event.type === 'delta') break;
      expect((await c.complete(request)).text).toBe('back again');
      expect(await recovered(c)).toEqual(['back again', 'back again']);
    });

    it('a trial whose caller throws inside its loop frees the way for the next trial', async () => {
      const { c } = await tripped('still here');
      const consume = async () => {
        for await (const event of c.stream(request)) if (event.type === 'delta') throw new Error('sink gone');
      };
      await expect(consume()).rejects.toThrow('sink gone');
      expect((await c.complete(request)).text).toBe('still here');
    });
  });

  it('cancels the upstream request when the caller aborts', async () => {
    const server = await serve({ reply: replyWith('word '.repeat(200)), faults: { tokensPerSecond: 50 } });
    const abort = new AbortController();
    const stream = client(server.url).stream(request, abort.signal);
    const seen: ChatStreamEvent[] = [];
    const run = collect({
      async *[Symbol.asyncIterator]() {
        for await (const event of stream) {
          seen.push(event);
          if (seen.length === 3) abort.abort();
          yield event;
        }
      },
    });
    const { error } = await run;
    expect(error).toMatchObject({ code: 'cancelled', retryable: false });
    await server.whenIdle();
    expect(server.requests.at(-1)?.aborted).toBe(true);
  });

  it('maps a refused connection to a retryable unavailability', async () => {
    const { error } = await collect(client('http://127.0.0.1:1/v1').stream(request));
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_unavailable', retryable: true });
  });

  it('an endpoint without the adapter (404) sends the turn to one that has it, and stays healthy', async () => {
    const without = await serve({ reply: replyWith('from the base') });
    const holder = await serve({
      reply: replyWith('from the arm'),
      loraAdapters: [{ name: 'arm-b', path: '/adapters/arm-b' }],
    });
    const both = client(without.url, holder.url);

    for (let i = 0; i < 3; i++) {
      const { events, error } = await collect(both.stream({ ...request, model: 'arm-b' }));
      expect(error).toBeUndefined();
      expect(text(events)).toBe('from the arm');
    }
    // Three 404s on a breaker that opens after two failures: it stayed closed, so the base still goes there.
    expect(without.requests.filter((r) => r.status === 404)).toHaveLength(3);
    const { events } = await collect(both.stream(request));
    expect(text(events)).toBe('from the base');
  });

  it('holds background work until the engine is free of replies (its timeout starts after); a reply goes at once', async () => {
    const server = await serve({ reply: replyWith('I am here.') });
    let replying = true;
    let reads = 0;
    const env = z.object(sideWorkEnv).parse({ MODEL_SIDE_WORK_POLL_MS: '50' });
    const lanes = new SideWorkLanes(env, undefined, () => async () => (reads++, replying ? 1 : 0));
    const shared = new ChatModelClient([{ baseUrl: server.url, apiKey: 'k' }], {
      ...options,
      sideWork: lanes,
    });

    const judge = shared.complete({ ...request, priority: MODEL_PRIORITY.scoring });
    await expect(shared.complete(request)).resolves.toMatchObject({ text: 'I am here.' });
    // Held longer than its first-token timeout (300 ms), and not sent.
    await waitFor(() => reads >= 8, { intervalMs: 10, what: 'the lane polling the engine' });
    expect(server.requests).toHaveLength(1);

    replying = false;
    await expect(judge).resolves.toMatchObject({ text: 'I am here.' });
    expect(server.requests).toHaveLength(2);
    expect(server.requests.at(-1)?.body).toMatchObject({ priority: MODEL_PRIORITY.scoring });
  });
});
