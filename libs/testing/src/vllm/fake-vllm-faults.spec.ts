import type { FakeVllm } from './fake-vllm-types';
import { openStream, type OpenStream } from './http-test-client';
import { startFakeVllm } from './start-fake-vllm';

const longReply = Array.from({ length: 100 }, (_, index) => `w${index}`).join(' ');
const request = { model: 'base', messages: [{ role: 'user', content: 'hi' }], stream: true };

describe('fake vLLM faults', () => {
  let vllm: FakeVllm;
  beforeEach(async () => {
    vllm = await startFakeVllm({ model: 'base', reply: 'one two three four five six' });
  });
  afterEach(() => vllm.close());

  const url = () => `${vllm.url}/chat/completions`;

  it('paces tokens at tokensPerSecond', async () => {
    vllm.setFaults({ tokensPerSecond: 50 });
    const started = performance.now();
    const stream = await openStream(url(), request);
    const payloads: string[] = [];
    for (
      let payload = await stream.nextPayload();
      payload !== '[DONE]';
      payload = await stream.nextPayload()
    ) {
      payloads.push(payload ?? '');
    }
    const finishedAt = performance.now();
    // role chunk + 6 content chunks, the last one 5 intervals of 20 ms after the first
    expect(payloads).toHaveLength(7);
    expect(finishedAt - started).toBeGreaterThanOrEqual(99);
  });

  it('sends headers at once and the first token after delayBeforeFirstTokenMs', async () => {
    vllm.setFaults({ delayBeforeFirstTokenMs: 400 });
    const started = performance.now();
    const stream = await openStream(url(), request);
    const headersAt = performance.now();
    expect(stream.status).toBe(200);
    const first = JSON.parse((await stream.nextPayload()) ?? '');
    const firstAt = performance.now();
    expect(first).toMatchObject({ choices: [{ delta: { role: 'assistant' } }] });
    expect(firstAt - started).toBeGreaterThanOrEqual(395);
    expect(firstAt - headersAt).toBeGreaterThanOrEqual(250);
  });

  it('destroys the connection after failAfterTokens tokens', async () => {
    vllm.faultNextRequest({ failAfterTokens: 2 });
    const stream = await openStream(url(), request);
    const received = await collectUntilBroken(stream);
    expect(received.payloads).toHaveLength(3); // role + 2 content chunks
    expect(received.error).toBeDefined();
    await vllm.whenIdle();
    expect(vllm.requests.at(-1)).toMatchObject({
      fault: 'failAfterTokens',
      aborted: false,
      completed: false,
    });
  });

  it('breaks the connection before [DONE] when failAfterTokens exceeds the reply', async () => {
    vllm.faultNextRequest({ failAfterTokens: 1000 });
    const received = await collectUntilBroken(await openStream(url(), request));
    expect(received.payloads).toHaveLength(7);
    expect(received.payloads).not.toContain('[DONE]');
    expect(received.error).toBeDefined();
  });

  it('stalls after stallAfterTokens until the client gives up, and records the abort', async () => {
    vllm.faultNextRequest({ stallAfterTokens: 1 });
    const controller = new AbortController();
    const stream = await openStream(url(), request, controller.signal);
    await stream.nextPayload();
    await stream.nextPayload();
    const next = stream.nextPayload();
    next.catch(() => undefined);
    expect(await Promise.race([next.then(() => 'data'), delay(300).then(() => 'silence')])).toBe('silence');
    controller.abort();
    await vllm.whenIdle();
    expect(vllm.requests.at(-1)).toMatchObject({
      fault: 'stallAfterTokens',
      aborted: true,
      completed: false,
    });
  });

  it('lets close() end a stalled stream without calling it a client abort', async () => {
    vllm.faultNextRequest({ stallAfterTokens: 0 });
    const stream = await openStream(url(), request);
    const broken = collectUntilBroken(stream);
    await delay(50);
    await vllm.close();
    expect((await broken).error).toBeDefined();
    expect(vllm.requests.at(-1)).toMatchObject({ aborted: false, completed: false });
  });

  it('stops generating when the client disconnects mid-stream', async () => {
    vllm.setReply(longReply);
    vllm.setFaults({ tokensPerSecond: 20 });
    const controller = new AbortController();
    const stream = await openStream(url(), request, controller.signal);
    await stream.nextPayload();
    await stream.nextPayload();
    const abortedAt = performance.now();
    controller.abort();
    await vllm.whenIdle();
    // the whole reply would take 5 s at this rate
    expect(performance.now() - abortedAt).toBeLessThan(2500);
    expect(vllm.requests.at(-1)).toMatchObject({ aborted: true, completed: false });
  });

  it('applies faults to non-streaming requests too', async () => {
    vllm.faultNextRequest({ failAfterTokens: 1 });
    await expect(
      fetch(url(), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...request, stream: false }),
      }),
    ).rejects.toThrow();
  });

  it('chooses faults per request with a function', async () => {
    vllm.setFaults((chat) =>
      chat.messages.at(-1)?.content === 'fail me'
        ? { failWith: { status: 429, message: 'slow down' } }
        : undefined,
    );
    const failing = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'base', messages: [{ role: 'user', content: 'fail me' }] }),
    });
    expect(failing.status).toBe(429);
    const fine = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'base', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(fine.status).toBe(200);
  });
});

async function collectUntilBroken(stream: OpenStream): Promise<{ payloads: string[]; error?: unknown }> {
  const payloads: string[] = [];
  try {
    for (
      let payload = await stream.nextPayload();
      payload !== undefined;
      payload = await stream.nextPayload()
    ) {
      payloads.push(payload);
    }
    return { payloads };
  } catch (error) {
    return { payloads, error };
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
