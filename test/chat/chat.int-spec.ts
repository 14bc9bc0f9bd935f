import { chatTurnCompletedV1, TOPICS } from '@echoloop/contracts';
import { turnResult } from '@echoloop/vocabulary';
import { MessageEntity } from '@echoloop/persistence';
import { findOnTopic, replyWith, testKafka } from '@echoloop/testing';
import { randomUUID } from 'node:crypto';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

const REPLY = 'That sounds exhausting. Do you want to tell me what happened on the ward tonight?';

describe('chat gateway: accounts, conversations and streaming turns', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
  });

  afterAll(async () => {
    await f?.close();
  });

  beforeEach(() => {
    f.vllm.setReply(replyWith(REPLY));
    f.vllm.setFaults(undefined);
  });

  const newConversation = async (token: string) => {
    const res = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    expect(res.status).toBe(201);
    return res.body as { id: string; greeting: { content: string } };
  };

  describe('accounts', () => {
    it('registers, logs in and reads its own profile', async () => {
      const email = `ada-${randomUUID()}@example.com`;
      const reg = await f.http(undefined, 'POST', '/v1/auth/register', {
        email,
        password: 'correct horse',
        displayName: 'Ada',
      });
      expect(reg.status).toBe(201);
      const login = await f.http(undefined, 'POST', '/v1/auth/login', {
        email: email.toUpperCase(),
        password: 'correct horse',
      });
      expect(login.status).toBe(200);
      const me = await f.http(login.body.accessToken, 'GET', '/v1/me');
      expect(me.body).toMatchObject({ email, displayName: 'Ada', roles: ['user'] });
      expect(JSON.stringify(me.body)).not.toMatch(/password/i);
    });

    it('rejects a duplicate email (409), a bad body (400 naming fields) and a wrong password (401)', async () => {
      const email = `bo-${randomUUID()}@example.com`;
      await f.http(undefined, 'POST', '/v1/auth/register', {
        email,
        password: 'long enough',
        displayName: 'Bo',
      });
      const dup = await f.http(undefined, 'POST', '/v1/auth/register', {
        email,
        password: 'long enough',
        displayName: 'Bo',
      });
      expect(dup).toMatchObject({ status: 409, body: { error: { code: 'email_taken' } } });
      const bad = await f.http(undefined, 'POST', '/v1/auth/register', { email: 'nope', password: 'short' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
        'displayName',
        'email',
        'password',
      ]);
      const wrong = await f.http(undefined, 'POST', '/v1/auth/login', { email, password: 'not the one' });
      expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'invalid_credentials' } } });
      const malformed = await f.http(undefined, 'POST', '/v1/auth/login', '{"email":');
      expect(malformed.status).toBe(400);
      const nul = await f.http(undefined, 'POST', '/v1/auth/register', {
        email: `nul-${randomUUID()}@example.com`,
        password: 'long enough',
        displayName: 'A\u0000B',
      });
      expect(nul).toMatchObject({ status: 400, body: { error: { details: [{ path: 'displayName' }] } } });
    });

    it('guards every private route', async () => {
      for (const [method, path] of [
        ['GET', '/v1/me'],
        ['GET', '/v1/conversations'],
        ['POST', '/v1/conversations'],
        ['GET', '/v1/characters'],
        ['DELETE', `/v1/conversations/${randomUUID()}`],
      ] as const) {
        expect((await f.http(undefined, method, path)).status).toBe(401);
        expect((await f.http('forged.token.value', method, path)).status).toBe(401);
      }
      expect((await f.http(undefined, 'GET', '/health/live')).status).toBe(200);
    });

    it('authenticates services with API keys that admins issue and revoke', async () => {
      // A key holds no role its minter lacks, so this admin is an experimenter too.
      const admin = await f.registerWithRoles(['admin', 'experimenter']);
      const issued = await f.http(admin.token, 'POST', '/v1/api-keys', {
        name: 'labeller',
        roles: ['experimenter'],
        services: ['chat-gateway'],
      });
      expect(issued).toMatchObject({
        status: 201,
        body: { key: expect.stringMatching(/^elk_/), roles: ['experimenter'] },
      });
      const asService = (key: string) =>
        fetch(`${f.gateway.url}/v1/checkpoints`, { headers: { 'x-api-key': key } }).then((r) => r.status);
      expect(await asService(issued.body.key)).toBe(200);
      expect(await asService('elk_not-a-real-key')).toBe(401);
      const userRoute = await fetch(`${f.gateway.url}/v1/conversations`, {
        headers: { 'x-api-key': issued.body.key },
      });
      expect(userRoute.status).toBe(403);
      const listed = await f.http(admin.token, 'GET', '/v1/api-keys');
      expect(JSON.stringify(listed.body)).not.toContain(issued.body.key);
      expect(
        (await f.http((await f.register()).token, 'POST', '/v1/api-keys', { name: 'x', roles: ['admin'] }))
          .status,
      ).toBe(403);
      expect((await f.http(admin.token, 'DELETE', `/v1/api-keys/${issued.body.id}`)).status).toBe(204);
      expect(await asService(issued.body.key)).toBe(401);
    });

    it('lets only admins create characters', async () => {
      const { token } = await f.register();
      const res = await f.http(token, 'POST', '/v1/characters', {
        spec: 'chara_card_v2',
        data: { name: 'X' },
      });
      expect(res).toMatchObject({ status: 403, body: { error: { code: 'forbidden' } } });
    });
  });

  describe('conversations', () => {
    it('opens with the character greeting, macros filled in', async () => {
      const { token } = await f.register('Sam');
      const conversation = await newConversation(token);
      expect(conversation.greeting.content).toBe('Hi Sam, long day?');
      const list = await f.http(token, 'GET', '/v1/conversations');
      expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([conversation.id]);
    });

    it('keeps each user out of every other user’s conversations', async () => {
      const owner = await f.register();
      const other = await f.register();
      const { id } = await newConversation(owner.token);
      expect((await f.http(other.token, 'GET', `/v1/conversations/${id}/messages`)).status).toBe(404);
      expect((await f.http(other.token, 'DELETE', `/v1/conversations/${id}`)).status).toBe(404);
      expect(
        (
          await f.http(other.token, 'POST', `/v1/conversations/${id}/messages`, {
            content: 'hi',
            clientMessageId: 'x',
          })
        ).status,
      ).toBe(404);
      expect((await f.http(other.token, 'GET', '/v1/conversations')).body.items).toEqual([]);
      const socket = await f.connect(other.token);
      const turn = await sendAndCollect(socket, { conversationId: id, content: 'hi', clientMessageId: 'x' });
      expect(turn.error).toMatchObject({ code: 'not_found', retryable: false });
      expect((await f.http(owner.token, 'GET', `/v1/conversations/${id}/messages`)).body.items).toHaveLength(
        1,
      );
    });

    it('answers bad ids with 4xx, never 500', async () => {
      const { token } = await f.register();
      expect((await f.http(token, 'GET', '/v1/conversations/not-a-uuid/messages')).status).toBe(400);
      expect((await f.http(token, 'POST', '/v1/conversations', { characterId: randomUUID() })).status).toBe(
        404,
      );
      expect((await f.http(token, 'POST', '/v1/conversations', { characterId: 'x' })).status).toBe(400);
      expect(
        (await f.http(token, 'GET', `/v1/conversations/${randomUUID()}/messages?limit=1000`)).status,
      ).toBe(400);
    });
  });

  describe('streaming a turn over socket.io', () => {
    it('streams batched deltas, persists both messages, and publishes the turn to Kafka', async () => {
      const { token, userId } = await f.register('Sam');
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);
      const turn = await sendAndCollect(socket, {
        conversationId,
        content: 'Long shift. I am wiped out.',
        clientMessageId: 'm1',
      });

      expect(turn.error).toBeUndefined();
      const ack = turn.ack as { userMessageId: string; replyId: string };
      expect(turn.deltas.map((d) => d.delta).join('')).toBe(REPLY);
      expect(turn.deltas.map((d) => d.index)).toEqual(turn.deltas.map((_, i) => i));
      expect(turn.deltas.length).toBeLessThan(REPLY.split(' ').length);
      expect(turn.done).toMatchObject({
        conversationId,
        replyId: ack.replyId,
        content: REPLY,
        finishReason: 'stop',
        usage: { promptTokens: expect.any(Number), completionTokens: expect.any(Number) },
        latencyMs: { ttft: expect.any(Number), total: expect.any(Number) },
        checkpointId: 'base',
      });

      const prompt = f.replyRequests().at(-1)!.messages;
      expect(prompt[0]?.content).toContain('Mira is a night-shift nurse who listens to Sam');
      expect(JSON.stringify(prompt)).not.toContain('never in the prompt');
      expect(prompt.at(-1)).toEqual({ role: 'user', content: 'Long shift. I am wiped out.' });

      const history = await f.http(token, 'GET', `/v1/conversations/${conversationId}/messages`);
      expect(history.body.items.map((m: { role: string }) => m.role)).toEqual([
        'assistant',
        'user',
        'assistant',
      ]);

      const messages = await findOnTopic(
        testKafka('chat-e2e'),
        TOPICS.chatTurnCompleted,
        (m) => String(m.key) === conversationId,
      );
      const event = chatTurnCompletedV1.schema.parse(JSON.parse(String(messages[0]?.value)));
      expect(event.payload).toMatchObject({
        turnId: ack.replyId,
        conversationId,
        userId,
        characterId: f.characterId,
        checkpointId: 'base',
        experimentId: null,
        userMessage: { id: ack.userMessageId, content: 'Long shift. I am wiped out.' },
        assistantMessage: { id: ack.replyId, content: REPLY, finishReason: 'stop' },
        history: [{ role: 'assistant', content: 'Hi Sam, long day?' }],
      });
    });

    it('never creates two turns for the same clientMessageId', async () => {
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);
      const payload = { conversationId, content: 'hello?', clientMessageId: 'same-id' };
      const first = await sendAndCollect(socket, payload);
      const second = await sendAndCollect(socket, payload);
      expect(second.ack).toEqual(first.ack);
      expect(second.done).toMatchObject({ content: REPLY });
      const stored = await f.db.getRepository(MessageEntity).countBy({ conversationId });
      expect(stored).toBe(3);
    });

    it('hides <think> reasoning from the user but stores it with the turn', async () => {
      f.vllm.setReply(replyWith('<think>They sound drained; be gentle.</think>Rest first. I am here.'));
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const turn = await sendAndCollect(await f.connect(token), {
        conversationId,
        content: 'ugh',
        clientMessageId: 't1',
      });
      expect(turn.done.content).toBe('Rest first. I am here.');
      expect(turn.deltas.map((d) => d.delta).join('')).toBe('Rest first. I am here.');
      const reply = await f.db.getRepository(MessageEntity).findOneByOrFail({ id: turn.done.replyId });
      expect(reply.reasoning).toBe('They sound drained; be gentle.');
    });

    it('rejects malformed and oversized messages with message:error, never a hang', async () => {
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);
      for (const payload of [
        { conversationId, content: 'x'.repeat(4_001), clientMessageId: 'big' },
        { conversationId, content: '   ', clientMessageId: 'empty' },
        { conversationId, content: 'a NUL \u0000 byte', clientMessageId: 'nul' },
        { conversationId: 'nope', content: 'hi', clientMessageId: 'c' },
        { content: 'hi' },
      ]) {
        const turn = await sendAndCollect(socket, payload);
        expect(turn.error).toMatchObject({ code: 'validation_failed', retryable: false });
      }
    });

    it('refuses a socket without a valid token', async () => {
      for (const token of ['bad-token', undefined]) {
        await expect(f.connect(token)).rejects.toMatchObject({
          message: 'unauthorized',
          data: { code: 'unauthorized', retryable: false },
        });
      }
    });

    it('stop cancels the upstream request and keeps what was said', async () => {
      f.vllm.setReply(replyWith('word '.repeat(300)));
      f.vllm.setFaults({ tokensPerSecond: 40 });
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);
      const firstDelta = new Promise((resolve) => socket.once('message:delta', resolve));
      const pending = sendAndCollect(socket, {
        conversationId,
        content: 'tell me everything',
        clientMessageId: 's1',
      });
      const { replyId } = (await firstDelta) as { replyId: string };
      expect(await socket.emitWithAck('message:stop', { replyId })).toEqual({ stopped: true });
      const turn = await pending;
      expect(turn.done).toMatchObject({ finishReason: 'cancelled' });
      expect(turn.done.content.length).toBeGreaterThan(0);
      expect(turn.done.content.length).toBeLessThan('word '.repeat(300).length);
      await f.vllm.whenIdle();
      expect(f.vllm.requests.at(-1)?.aborted).toBe(true);
    });

    it('a client that drops mid-reply resumes it on a new connection with nothing lost or doubled', async () => {
      const long = 'word '.repeat(120).trim();
      f.vllm.setReply(replyWith(long));
      f.vllm.setFaults({ tokensPerSecond: 60 });
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const first = await f.connect(token);
      const firstDelta = new Promise((resolve) => first.once('message:delta', resolve));
      const ack = await first.emitWithAck('message:send', {
        conversationId,
        content: 'tell me a long story',
        clientMessageId: 'r1',
      });
      await firstDelta;
      first.disconnect();

      const second = await f.connect(token);
      const deltas: { index: number; delta: string }[] = [];
      second.on('message:delta', (event: { index: number; delta: string }) => deltas.push(event));
      const done = new Promise<{ content: string }>((resolve) => second.once('message:done', resolve));
      const resumed = await second.emitWithAck('message:resume', { conversationId });
      expect(resumed.replies).toEqual([
        expect.objectContaining({ replyId: ack.replyId, userMessageId: ack.userMessageId }),
      ]);
      const [snapshot] = resumed.replies;
      expect(snapshot.content.length).toBeGreaterThan(0);
      // Resuming twice on one socket does not double the deltas.
      await second.emitWithAck('message:resume', { conversationId });
      const final = await done;
      const later = deltas.filter((d) => d.index > snapshot.index);
      expect(new Set(later.map((d) => d.index)).size).toBe(later.length);
      expect(snapshot.content + later.map((d) => d.delta).join('')).toBe(final.content);
      expect(final.content).toBe(long);

      // Nothing streams any more, and someone else's conversation is not theirs to resume.
      expect(await second.emitWithAck('message:resume', { conversationId })).toEqual({ replies: [] });
      const other = await f.register();
      const stranger = await f.connect(other.token);
      expect(await stranger.emitWithAck('message:resume', { conversationId })).toMatchObject({
        error: { code: 'not_found' },
      });
      f.vllm.setFaults(undefined);
    });

    it('cancels the model request when the message cannot be stored: a clear error, and nothing stored', async () => {
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);
      // A first turn: the next one starts its model request before the database answers.
      expect(
        (await sendAndCollect(socket, { conversationId, content: 'hi', clientMessageId: 'w1' })).done,
      ).toBeDefined();
      await f.db.query(
        `CREATE FUNCTION refuse_message() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN IF NEW.content = 'refused' THEN RAISE EXCEPTION 'storage failed'; END IF; RETURN NEW; END $$`,
      );
      await f.db.query(
        'CREATE TRIGGER refuse_message BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION refuse_message()',
      );
      try {
        f.vllm.setFaults({ delayBeforeFirstTokenMs: 400 });
        const before = f.vllm.requests.length;
        const failed = await sendAndCollect(socket, {
          conversationId,
          content: 'refused',
          clientMessageId: 'w2',
        });
        expect(failed.ack).toMatchObject({ error: { code: 'message_not_stored' } });
        expect(failed.error).toMatchObject({ code: 'message_not_stored', retryable: true });
        await f.vllm.whenIdle();
        const replies = f.vllm.requests
          .slice(before)
          .filter((r) => !(r.body as { response_format?: unknown }).response_format);
        expect(replies.map((r) => r.aborted)).toEqual([true]);
        const stored = await f.db.query(
          `SELECT role, content FROM messages WHERE conversation_id = $1 ORDER BY created_at`,
          [conversationId],
        );
        expect(stored.map((m: { role: string }) => m.role)).toEqual(['assistant', 'user', 'assistant']);
      } finally {
        f.vllm.setFaults(undefined);
        await f.db.query('DROP TRIGGER refuse_message ON messages');
        await f.db.query('DROP FUNCTION refuse_message()');
      }
    });

    it('tells the client the model failed, with retryable set, within the timeouts', async () => {
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);

      f.vllm.setFaults({ failWith: { status: 503, message: 'overloaded' } });
      const failed = await sendAndCollect(socket, { conversationId, content: 'hi', clientMessageId: 'f1' });
      expect(failed.error).toMatchObject({ code: 'model_unavailable', retryable: true });

      f.vllm.setFaults({ delayBeforeFirstTokenMs: 60_000 });
      const started = Date.now();
      const stalled = await sendAndCollect(socket, {
        conversationId,
        content: 'hi again',
        clientMessageId: 'f2',
      });
      expect(stalled.error).toMatchObject({ code: 'model_timeout', retryable: true });
      expect(Date.now() - started).toBeLessThan(10_000);

      // The user's messages were kept; resending the same message retries it as one turn.
      f.vllm.setFaults(undefined);
      const retried = await sendAndCollect(socket, { conversationId, content: 'hi', clientMessageId: 'f1' });
      expect(retried.done).toMatchObject({ content: REPLY });
    });
  });

  describe('safety', () => {
    it('a message signalling danger gets safety guidance in the prompt, a caring reply, and the flag in the event', async () => {
      const { token } = await f.register('Sam');
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);
      const turn = await sendAndCollect(socket, {
        conversationId,
        content: "I don't want to wake up anymore",
        clientMessageId: 's1',
      });
      expect(turn.done).toMatchObject({ content: REPLY, finishReason: 'stop' });
      const system = f.replyRequests().at(-1)!.messages[0]?.content;
      expect(system).toContain('Sam may be in danger or distress');
      expect(system).toContain('988');
      const [event] = await findOnTopic(
        testKafka('safety'),
        TOPICS.chatTurnCompleted,
        (m) => String(m.key) === conversationId,
      );
      expect(JSON.parse(String(event?.value)).payload.safety).toEqual({
        flagged: true,
        categories: ['self_harm'],
      });
    });

    it('everyday hyperbole is not flagged', async () => {
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      await sendAndCollect(await f.connect(token), {
        conversationId,
        content: 'this exam is killing me',
        clientMessageId: 'h1',
      });
      const system = f.replyRequests().at(-1)!.messages[0]?.content;
      expect(system).not.toContain('may be in danger');
      const [event] = await findOnTopic(
        testKafka('safety'),
        TOPICS.chatTurnCompleted,
        (m) => String(m.key) === conversationId,
      );
      expect(JSON.parse(String(event?.value)).payload.safety).toEqual({ flagged: false, categories: [] });
    });
  });

  describe('regenerate, swipes and feedback', () => {
    it('regenerates a new alternative, keeps both, lets the user pick, and the pick shapes the next prompt', async () => {
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const socket = await f.connect(token);
      f.vllm.setReply(replyWith('First take.'));
      const first = await sendAndCollect(socket, { conversationId, content: 'hello', clientMessageId: 'r1' });
      f.vllm.setReply(replyWith('Second take.'));
      const ack = await socket.emitWithAck('message:regenerate', { replyId: first.done.replyId });
      const second = await new Promise<any>((resolve) => socket.once('message:done', resolve));
      expect(ack.userMessageId).toBe((first.ack as { userMessageId: string }).userMessageId);
      expect(second).toMatchObject({ content: 'Second take.', replyId: ack.replyId });

      const listed = await f.http(token, 'GET', `/v1/conversations/${conversationId}/messages`);
      const replies = listed.body.items.filter((m: any) => m.parentId === ack.userMessageId);
      expect(replies.map((m: any) => [m.content, m.selected])).toEqual([
        ['First take.', false],
        ['Second take.', true],
      ]);

      expect((await f.http(token, 'POST', `/v1/messages/${first.done.replyId}/select`)).status).toBe(204);
      f.vllm.setReply(replyWith('ok'));
      await sendAndCollect(socket, { conversationId, content: 'next', clientMessageId: 'r2' });
      const prompt = JSON.stringify(f.replyRequests().at(-1)!.messages);
      expect(prompt).toContain('First take.');
      expect(prompt).not.toContain('Second take.');

      const swipes = await findOnTopic(
        testKafka('swipe'),
        TOPICS.chatFeedbackV2,
        (m) => String(m.key) === conversationId,
      );
      expect(JSON.parse(String(swipes[0]?.value)).payload).toMatchObject({
        kind: 'swipe',
        selectedTurnId: first.done.replyId,
        rejectedTurnIds: [ack.replyId],
      });
    });

    it('regenerates over HTTP too, and refuses the greeting or someone else’s reply', async () => {
      const { token } = await f.register();
      const other = await f.register();
      const conversation = await newConversation(token);
      const socket = await f.connect(token);
      const turn = await sendAndCollect(socket, {
        conversationId: conversation.id,
        content: 'hi',
        clientMessageId: 'g1',
      });
      const again = await f.http(token, 'POST', `/v1/messages/${turn.done.replyId}/regenerate`);
      expect(again).toMatchObject({ status: 201, body: { reply: { content: REPLY } } });
      // As the OpenAPI document says (a route that answers through the response object skips the contract check).
      expect(turnResult.safeParse(again.body).error).toBeUndefined();
      const greetingId = (conversation as any).greeting.id;
      expect((await f.http(token, 'POST', `/v1/messages/${greetingId}/regenerate`)).status).toBe(422);
      expect((await f.http(other.token, 'POST', `/v1/messages/${turn.done.replyId}/regenerate`)).status).toBe(
        404,
      );
      expect((await f.http(other.token, 'POST', `/v1/messages/${turn.done.replyId}/select`)).status).toBe(
        404,
      );
    });

    it('records thumbs and stars as separate answers, once per user and reply, and publishes the whole feedback', async () => {
      const { token } = await f.register();
      const other = await f.register();
      const { id: conversationId } = await newConversation(token);
      const turn = await sendAndCollect(await f.connect(token), {
        conversationId,
        content: 'hi',
        clientMessageId: 'fb',
      });
      const path = `/v1/messages/${turn.done.replyId}/feedback`;
      expect((await f.http(token, 'POST', path, { thumb: 'down', tags: ['too long'] })).status).toBe(200);
      // A field left out keeps its value: stars are added to the thumb, the tags stay.
      const starred = await f.http(token, 'POST', path, { stars: 1, comment: 'meh' });
      expect(starred.body).toMatchObject({ thumb: 'down', stars: 1, comment: 'meh', tags: ['too long'] });
      const changed = await f.http(token, 'POST', path, { thumb: 'up', stars: null, tags: [] });
      expect(changed.body).toMatchObject({ thumb: 'up', stars: null, comment: 'meh', tags: [] });
      expect((await f.http(token, 'POST', path, {})).status).toBe(400);
      for (const bad of [{ stars: 0 }, { stars: 6 }, { thumb: 1 }, { rating: 1 }, { stars: 2.5 }]) {
        expect([bad, (await f.http(token, 'POST', path, bad)).status]).toEqual([bad, 400]);
      }
      expect((await f.http(other.token, 'POST', path, { thumb: 'up' })).status).toBe(404);
      const rows = await f.db.query('SELECT thumb, stars FROM feedback WHERE message_id = $1', [
        turn.done.replyId,
      ]);
      expect(rows).toEqual([{ thumb: 1, stars: null }]);
      // The conversation, read again (a reload), shows the user their own rating on the reply only.
      const listed = await f.http(token, 'GET', `/v1/conversations/${conversationId}/messages`);
      expect(listed.body.items.map((m: { role: string; feedback: unknown }) => [m.role, m.feedback])).toEqual(
        [
          ['assistant', null],
          ['user', null],
          ['assistant', { thumb: 'up', stars: null }],
        ],
      );
      const events = await findOnTopic(
        testKafka('feedback'),
        TOPICS.chatFeedbackV2,
        (m) => String(m.key) === conversationId,
        3,
      );
      expect(
        events.map((m) => {
          const { thumb, stars, tags } = JSON.parse(String(m.value)).payload;
          return { thumb, stars, tags };
        }),
      ).toEqual([
        { thumb: 'down', stars: null, tags: ['too long'] },
        { thumb: 'down', stars: 1, tags: ['too long'] },
        { thumb: 'up', stars: null, tags: [] },
      ]);
    });
  });

  describe('checkpoint registry', () => {
    it('serves turns from the configured default checkpoint and lets experimenters register more', async () => {
      const { token } = await f.register();
      expect((await f.http(token, 'GET', '/v1/checkpoints')).status).toBe(403);
      const admin = await f.register();
      await f.db.query(`UPDATE users SET roles = '{experimenter}' WHERE id = $1`, [admin.userId]);
      const login = await f.http(admin.token, 'GET', '/v1/me');
      expect(login.body.roles).toEqual(['experimenter']);
      // Roles travel in the token: sign in again to get them.
      const email = login.body.email;
      const fresh = await f.http(undefined, 'POST', '/v1/auth/login', {
        email,
        password: 'a good passphrase',
      });
      const experimenter = fresh.body.accessToken;
      const listed = await f.http(experimenter, 'GET', '/v1/checkpoints');
      expect(listed.body.items).toEqual([
        expect.objectContaining({
          id: 'base',
          modelName: 'fake-base-model',
          isDefault: true,
          status: 'active',
        }),
      ]);
      const lora = {
        id: 'rl-2026-11-21',
        modelName: 'echo-lora-v1',
        endpoints: [{ baseUrl: f.vllm.url }],
        decoding: { temperature: 0.7 },
      };
      expect(await f.http(experimenter, 'POST', '/v1/checkpoints', lora)).toMatchObject({
        status: 201,
        body: { id: 'rl-2026-11-21', status: 'candidate', isDefault: false },
      });
      expect((await f.http(experimenter, 'POST', '/v1/checkpoints', lora)).status).toBe(409);
      expect((await f.http(experimenter, 'POST', '/v1/checkpoints', { ...lora, id: 'Bad Id' })).status).toBe(
        400,
      );
    });
  });

  describe('sending over HTTP', () => {
    it('answers JSON by default and SSE when asked', async () => {
      const { token } = await f.register();
      const { id: conversationId } = await newConversation(token);
      const json = await f.http(token, 'POST', `/v1/conversations/${conversationId}/messages`, {
        content: 'hi',
        clientMessageId: 'h1',
      });
      expect(json).toMatchObject({ status: 201, body: { reply: { content: REPLY, finishReason: 'stop' } } });
      expect(turnResult.safeParse(json.body).error).toBeUndefined();

      const res = await fetch(`${f.gateway.url}/v1/conversations/${conversationId}/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: JSON.stringify({ content: 'and again', clientMessageId: 'h2' }),
      });
      expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
      const text = await res.text();
      expect(text).toMatch(/^event: message:ack\n/);
      expect(text).toContain('event: message:delta');
      expect(text).toMatch(/event: message:done\ndata: .*"content":"That sounds exhausting/);
    });
  });
});
