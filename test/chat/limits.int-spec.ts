import { MessageEntity } from '@echoloop/persistence';
import { replyWith } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

describe('per-user limits', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture({
      RATE_LIMIT_PER_MINUTE: '3',
      DAILY_MESSAGE_QUOTA: '6',
      MAX_CONCURRENT_STREAMS: '1',
    });
    f.vllm.setReply(replyWith('ok then'));
  });

  afterAll(async () => {
    await f?.close();
  });

  const conversationFor = async (token: string): Promise<string> =>
    (await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId })).body.id;

  it('rate-limits a burst with a clear, retryable error; resends of the same message are free', async () => {
    const { token } = await f.register();
    const conversationId = await conversationFor(token);
    const socket = await f.connect(token);
    for (let i = 0; i < 3; i++) {
      const turn = await sendAndCollect(socket, {
        conversationId,
        content: `m${i}`,
        clientMessageId: `r${i}`,
      });
      expect(turn.error).toBeUndefined();
    }
    const resend = await sendAndCollect(socket, { conversationId, content: 'm0', clientMessageId: 'r0' });
    expect(resend.done).toMatchObject({ content: 'ok then' });

    const limited = await sendAndCollect(socket, {
      conversationId,
      content: 'one more',
      clientMessageId: 'r3',
    });
    expect(limited.error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      retryAfterMs: expect.any(Number),
    });

    const res = await fetch(`${f.gateway.url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'over http', clientMessageId: 'r4' }),
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await res.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });

  it('allows one streaming reply at a time per user', async () => {
    f.vllm.setFaults({ tokensPerSecond: 20 });
    f.vllm.setReply(replyWith('slow '.repeat(40)));
    try {
      const { token } = await f.register();
      const conversationId = await conversationFor(token);
      const socket = await f.connect(token);
      const first = sendAndCollect(socket, { conversationId, content: 'a', clientMessageId: 'c1' });
      await new Promise((resolve) => socket.once('message:delta', resolve));
      const second = await socket.emitWithAck('message:send', {
        conversationId,
        content: 'b',
        clientMessageId: 'c2',
      });
      expect(second).toMatchObject({ error: { code: 'too_many_streams' } });
      await socket.emitWithAck('message:stop', { replyId: (await first.catch(() => undefined), '') });
    } finally {
      f.vllm.setFaults(undefined);
      f.vllm.setReply(replyWith('ok then'));
    }
  });

  it('answers an SSE request over the stream limit with 429 and Retry-After', async () => {
    f.vllm.setFaults({ tokensPerSecond: 20 });
    f.vllm.setReply(replyWith('slow '.repeat(40)));
    try {
      const { token } = await f.register();
      const conversationId = await conversationFor(token);
      const socket = await f.connect(token);
      const first = sendAndCollect(socket, { conversationId, content: 'a', clientMessageId: 's1' });
      await new Promise((resolve) => socket.once('message:delta', resolve));
      const res = await fetch(`${f.gateway.url}/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({ content: 'b', clientMessageId: 's2' }),
      });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await res.json()).toMatchObject({ error: { code: 'too_many_streams' } });
      expect((await first).done).toBeDefined();
    } finally {
      f.vllm.setFaults(undefined);
      f.vllm.setReply(replyWith('ok then'));
    }
  });

  it('parallel sends cannot overrun the stream limit, and parallel duplicates share one reply', async () => {
    const { token } = await f.register();
    const conversationId = await conversationFor(token);
    const socket = await f.connect(token);
    const send = (clientMessageId: string) =>
      socket.emitWithAck('message:send', { conversationId, content: 'hi', clientMessageId });
    const [a, b] = await Promise.all([send('p1'), send('p2')]);
    expect([a, b].filter((ack) => ack.error?.code === 'too_many_streams')).toHaveLength(1);
    await new Promise((resolve) => socket.once('message:done', resolve));

    const [c, d] = await Promise.all([send('dup'), send('dup')]);
    expect(c.replyId).toBeDefined();
    expect(d).toEqual(c);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [{ n }] = await f.db.query(
      `SELECT count(*)::int AS n FROM messages WHERE parent_id = $1 AND role = 'assistant'`,
      [c.userMessageId],
    );
    expect(n).toBe(1);
  });

  it('throttles repeated login attempts on one account, without revealing anything else', async () => {
    const { token } = await f.register();
    const email = (await f.http(token, 'GET', '/v1/me')).body.email;
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push(
        (await f.http(undefined, 'POST', '/v1/auth/login', { email, password: 'wrong guess' })).status,
      );
    }
    expect(statuses.slice(0, 9).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it('enforces the daily quota until midnight UTC', async () => {
    const { token } = await f.register();
    const conversationId = await conversationFor(token);
    const messages = f.db.getRepository(MessageEntity);
    for (let i = 0; i < 6; i++)
      await messages.save(messages.create({ conversationId, role: 'user', content: `earlier ${i}` }));
    const res = await f.http(token, 'POST', `/v1/conversations/${conversationId}/messages`, {
      content: 'hello',
      clientMessageId: 'q1',
    });
    expect(res).toMatchObject({ status: 429, body: { error: { code: 'quota_exceeded' } } });
    expect(res.body.error.details.retryAfterSeconds).toBeLessThanOrEqual(86_400);
  });
});
