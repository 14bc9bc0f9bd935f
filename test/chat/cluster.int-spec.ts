import type { AppProcess } from '@echoloop/testing';
import { replyWith } from '@echoloop/testing';
import type { Socket } from 'socket.io-client';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

/**
 * Two gateway processes on one database (as replicas on two machines, or GATEWAY_WORKERS=2 on one): whatever a
 * client does on one reaches the reply streaming on the other, and the per-user limits hold across both.
 */
describe('gateway processes sharing one database', () => {
  let f: ChatFixture;
  let b: AppProcess;

  beforeAll(async () => {
    // No test here sends more than 3 turns for one user, except the quota's own.
    f = await startChatFixture({
      MAX_CONCURRENT_STREAMS: '1',
      RATE_LIMIT_PER_MINUTE: '1000',
      DAILY_MESSAGE_QUOTA: '3',
    });
    b = await f.startPeer();
    // The processes learn of each other from their heartbeats (every second).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
  }, 120_000);

  afterAll(async () => {
    await f?.close();
  });

  afterEach(() => {
    f.vllm.setFaults(undefined);
    f.vllm.setReply(replyWith('ok then'));
  });

  const slowReply = () => {
    f.vllm.setReply(replyWith('word '.repeat(120).trim()));
    f.vllm.setFaults({ tokensPerSecond: 40 });
  };

  const userWithConversation = async () => {
    const user = await f.register();
    const conversation = await f.http(user.token, 'POST', '/v1/conversations', {
      characterId: f.characterId,
    });
    return { ...user, conversationId: conversation.body.id as string };
  };

  const startStreaming = async (socket: Socket, conversationId: string, clientMessageId: string) => {
    const firstDelta = new Promise((resolve) => socket.once('message:delta', resolve));
    const done = new Promise<{ finishReason: string; content: string }>((resolve) =>
      socket.once('message:done', resolve),
    );
    const ack = await socket.emitWithAck('message:send', {
      conversationId,
      content: 'tell me a long story',
      clientMessageId,
    });
    await firstDelta;
    return { ack: ack as { replyId: string; userMessageId: string }, done };
  };

  it('a stop sent to one process stops the reply streaming on the other', async () => {
    slowReply();
    const { token, conversationId } = await userWithConversation();
    const onA = await f.connect(token);
    const onB = await f.connectTo(b.url, token);
    const { ack, done } = await startStreaming(onA, conversationId, 's1');
    expect(await onB.emitWithAck('message:stop', { replyId: ack.replyId })).toEqual({ stopped: true });
    expect((await done).finishReason).toBe('cancelled');
    expect(await onB.emitWithAck('message:stop', { replyId: 'not-a-reply' })).toEqual({ stopped: false });
  });

  it('a client resuming on the other process gets the text so far and every later delta', async () => {
    slowReply();
    const { token, conversationId } = await userWithConversation();
    const onA = await f.connect(token);
    const { ack } = await startStreaming(onA, conversationId, 'r1');
    onA.disconnect();

    const onB = await f.connectTo(b.url, token);
    const deltas: { index: number; delta: string }[] = [];
    onB.on('message:delta', (event: { index: number; delta: string }) => deltas.push(event));
    const done = new Promise<{ content: string }>((resolve) => onB.once('message:done', resolve));
    const resumed = await onB.emitWithAck('message:resume', { conversationId });
    expect(resumed.replies).toEqual([
      expect.objectContaining({ replyId: ack.replyId, userMessageId: ack.userMessageId }),
    ]);
    const [snapshot] = resumed.replies;
    const final = await done;
    const later = deltas.filter((d) => d.index > snapshot.index);
    expect(new Set(later.map((d) => d.index)).size).toBe(later.length);
    expect(snapshot.content + later.map((d) => d.delta).join('')).toBe(final.content);
    expect(final.content).toBe('word '.repeat(120).trim());
  });

  it('regenerates on one process a reply made on the other', async () => {
    const { token, conversationId } = await userWithConversation();
    const first = await sendAndCollect(await f.connect(token), {
      conversationId,
      content: 'hi',
      clientMessageId: 'g1',
    });
    f.vllm.setReply(replyWith('another take'));
    const onB = await f.connectTo(b.url, token);
    const done = new Promise<{ content: string; replyId: string }>((resolve) =>
      onB.once('message:done', resolve),
    );
    const ack = await onB.emitWithAck('message:regenerate', { replyId: first.done.replyId });
    expect(ack).toMatchObject({ replyId: expect.any(String) });
    expect(await done).toMatchObject({ content: 'another take', replyId: ack.replyId });
  });

  it('holds the concurrent-stream limit across processes, and frees the slot when the reply ends', async () => {
    slowReply();
    const { token, conversationId } = await userWithConversation();
    const onA = await f.connect(token);
    const { ack, done } = await startStreaming(onA, conversationId, 'l1');

    const refused = await fetch(`${b.url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'and another', clientMessageId: 'l2' }),
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'too_many_streams' } });
    const onB = await f.connectTo(b.url, token);
    expect(
      await onB.emitWithAck('message:send', {
        conversationId,
        content: 'and another',
        clientMessageId: 'l3',
      }),
    ).toMatchObject({ error: { code: 'too_many_streams' } });

    await onA.emitWithAck('message:stop', { replyId: ack.replyId });
    await done;
    f.vllm.setFaults(undefined);
    f.vllm.setReply(replyWith('ok then'));
    // The slot is given back just after done.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await sendAndCollect(onB, { conversationId, content: 'now?', clientMessageId: 'l4' });
    expect(after.done).toMatchObject({ content: 'ok then' });
  });

  it('counts one daily quota across processes; a resend of a message already sent is still answered', async () => {
    const { token, conversationId } = await userWithConversation();
    const onA = await f.connect(token);
    const onB = await f.connectTo(b.url, token);
    const turn = (socket: Socket, id: string) =>
      sendAndCollect(socket, { conversationId, content: `message ${id}`, clientMessageId: id });
    for (const [socket, id] of [
      [onA, 'q1'],
      [onB, 'q2'],
      [onA, 'q3'],
    ] as const)
      expect((await turn(socket, id)).done).toMatchObject({ content: 'ok then' });

    // Each process allowed fewer than 3, but the user has had 3 today.
    for (const socket of [onA, onB])
      expect(
        await socket.emitWithAck('message:send', { conversationId, content: 'more', clientMessageId: 'q4' }),
      ).toMatchObject({ error: { code: 'quota_exceeded' } });
    const refused = await fetch(`${b.url}/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'more', clientMessageId: 'q5' }),
    });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    expect((await turn(onB, 'q3')).done).toMatchObject({ content: 'ok then' });
    const stored = await f.db.query(
      `SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1 AND role = 'user'`,
      [conversationId],
    );
    expect(stored).toEqual([{ n: 3 }]);
  });

  it('a resend reaching the other process while the reply streams joins it: one reply, every delta', async () => {
    slowReply();
    const { token, conversationId } = await userWithConversation();
    const onA = await f.connect(token);
    const before = f.replyRequests().length;
    const { ack } = await startStreaming(onA, conversationId, 'again');
    const onB = await f.connectTo(b.url, token);
    const deltas: { index: number; delta: string }[] = [];
    onB.on('message:delta', (event: { index: number; delta: string }) => deltas.push(event));
    const done = new Promise<{ content: string; replyId: string }>((resolve) =>
      onB.once('message:done', resolve),
    );
    const resent = await onB.emitWithAck('message:send', {
      conversationId,
      content: 'tell me a long story',
      clientMessageId: 'again',
    });
    expect(resent).toEqual(ack);
    expect(await done).toMatchObject({ replyId: ack.replyId, content: 'word '.repeat(120).trim() });
    expect(deltas.length).toBeGreaterThan(0);
    expect(f.replyRequests().length - before).toBe(1);
    const replies = await f.db.query('SELECT id FROM messages WHERE parent_id = $1', [ack.userMessageId]);
    expect(replies).toEqual([{ id: ack.replyId }]);
  });

  it('drops cached checkpoints and characters at once when another process changes them', async () => {
    const { token, conversationId } = await userWithConversation();
    const onB = await f.connectTo(b.url, token);
    // B caches the default checkpoint (for 5 s).
    expect(
      (await sendAndCollect(onB, { conversationId, content: 'one', clientMessageId: 'c1' })).done,
    ).toBeDefined();

    // A checkpoint changed by another process (the RL orchestrator, a script), and the card edited through A.
    await f.db.query(
      `UPDATE checkpoints SET decoding = decoding || '{"temperature": 0.123}' WHERE is_default`,
    );
    const admin = await f.registerWithRoles(['admin']);
    const edited = await f.http(admin.token, 'PATCH', `/v1/characters/${f.characterId}`, {
      data: { description: '{{char}} is a lighthouse keeper.' },
    });
    expect(edited.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const before = f.replyRequests().length;
    expect(
      (await sendAndCollect(onB, { conversationId, content: 'two', clientMessageId: 'c2' })).done,
    ).toBeDefined();
    const sent = f.replyRequests().slice(before) as unknown as {
      temperature?: number;
      messages: { content: string }[];
    }[];
    // Well within the 5 s the cache would otherwise keep the old checkpoint.
    expect(sent.at(-1)?.temperature).toBe(0.123);
    expect(JSON.stringify(sent.at(-1)?.messages)).toContain('lighthouse keeper');
  });
});
