import { replyWith } from '@echoloop/testing';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import OpenAI, { type APIError } from 'openai';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';

const SYSTEM = 'You are Juniper, a calm lighthouse keeper. Answer in two sentences.';
const FIRST = 'The light has turned for a hundred years. What brings you up the stairs tonight?';
const SECOND = 'Storms pass, even the long ones. Sit by the lamp a while.';
const SWIPE = 'Then stay until the fog lifts; the kettle is warm.';

/** The number of replies and user messages a user has, by conversation. */
const countsOf = async (f: ChatFixture, userId: string) =>
  (await f.db.query(
    `SELECT c.id, c.client_name,
            count(*) FILTER (WHERE m.role = 'user')::int AS users,
            count(*) FILTER (WHERE m.role = 'assistant')::int AS replies
       FROM conversations c JOIN messages m ON m.conversation_id = c.id
      WHERE c.user_id = $1 GROUP BY c.id`,
    [userId],
  )) as { id: string; client_name: string; users: number; replies: number }[];

describe('POST /v1/chat/completions: an OpenAI SDK client chats as its user, each request a turn of the loop', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture({ RATE_LIMIT_PER_MINUTE: '6' });
  });
  afterAll(() => f?.close());

  const personalKey = async (token: string, name = 'SillyTavern') => {
    const res = await f.http(token, 'POST', '/v1/me/api-keys', { name });
    expect(res.status).toBe(201);
    return res.body as { id: string; key: string };
  };
  const clientOf = (key: string) =>
    new OpenAI({ apiKey: key, baseURL: `${f.gateway.url}/v1`, maxRetries: 0 });

  it('answers whole and streamed, keeps a resent history in one conversation, and takes a resent request as a swipe', async () => {
    const { token, userId } = await f.register('Ana');
    const client = clientOf((await personalKey(token)).key);

    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['default', f.characterId]);

    f.vllm.setReply(replyWith(FIRST));
    const first = await client.chat.completions.create({
      model: 'Mira',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'I could not sleep.' },
      ],
    });
    expect(first.object).toBe('chat.completion');
    expect(first.choices[0]?.message.content).toBe(FIRST);
    expect(first.choices[0]?.finish_reason).toBe('stop');
    expect(first.usage?.completion_tokens).toBeGreaterThan(0);
    // The client's system prompt is the prompt; the card's definition is not added to it.
    const prompt = f.replyRequests().at(-1)!.messages;
    expect(prompt[0]?.content.startsWith(SYSTEM)).toBe(true);
    expect(JSON.stringify(prompt)).not.toContain(MIRA_DESCRIPTION_WORD);

    f.vllm.setReply(replyWith(SECOND));
    const history = [
      { role: 'system' as const, content: SYSTEM },
      { role: 'user' as const, content: 'I could not sleep.' },
      { role: 'assistant' as const, content: FIRST },
      { role: 'user' as const, content: 'The storm kept me awake.' },
    ];
    const stream = await client.chat.completions.create({
      model: 'Mira',
      messages: history,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let id: string | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      id ??= chunk.id;
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(SECOND);
    expect(usage?.prompt_tokens).toBeGreaterThan(0);
    // The earlier turn reached the model from the stored conversation, as the client showed it.
    expect(
      f
        .replyRequests()
        .at(-1)!
        .messages.slice(1)
        .map((m) => m.content),
    ).toEqual(history.slice(1).map((m) => m.content));
    expect(await countsOf(f, userId)).toEqual([
      expect.objectContaining({ client_name: 'SillyTavern', users: 2, replies: 2 }),
    ]);

    // The same request again (the history minus its answer): a new alternative of that answer.
    f.vllm.setReply(replyWith(SWIPE));
    const swipe = await client.chat.completions.create({ model: 'Mira', messages: history });
    expect(swipe.choices[0]?.message.content).toBe(SWIPE);
    expect(swipe.id).not.toBe(id);
    const [row] = (await f.db.query(`SELECT parent_id FROM messages WHERE id = $1`, [swipe.id])) as {
      parent_id: string;
    }[];
    const [earlier] = (await f.db.query(`SELECT parent_id FROM messages WHERE id = $1`, [id])) as {
      parent_id: string;
    }[];
    expect(row?.parent_id).toBe(earlier?.parent_id);
    expect(await countsOf(f, userId)).toEqual([expect.objectContaining({ users: 2, replies: 3 })]);

    // Feedback from the client's plugin, by the completion's id, with the same key.
    const rated = await fetch(`${f.gateway.url}/v1/messages/${swipe.id}/feedback`, {
      method: 'POST',
      headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ thumb: 'up' }),
    });
    expect(rated.status).toBe(200);
  });

  it('stops a reply where the model starts speaking as a speaker the client named', async () => {
    const { token } = await f.register('Gus');
    const client = clientOf((await personalKey(token)).key);
    f.vllm.setReply(replyWith(`${FIRST}\nRowan: and then I said`));
    const answer = await client.chat.completions.create({
      model: 'default',
      messages: [
        { role: 'system', content: 'You are {{char}}, talking with {{user}}.' },
        { role: 'assistant', content: 'Welcome in.', name: 'Keeper' },
        { role: 'user', content: 'Hello there.', name: 'Rowan' },
      ],
    });
    expect(answer.choices[0]?.message.content).toBe(FIRST);
    const request = f.replyRequests().at(-1) as { stop?: string[]; messages: { content: string }[] };
    expect(request.stop).toEqual(expect.arrayContaining(['\nRowan:', '\nKeeper:']));
    expect(request.messages[0]?.content).toBe('You are Keeper, talking with Rowan.');
  });

  it('names a conversation by X-Conversation-Id; a personal key works nowhere else', async () => {
    const { token, userId } = await f.register('Ben');
    const { key } = await personalKey(token, 'Open WebUI');
    const { body: conversation } = await f.http(token, 'POST', '/v1/conversations', {
      characterId: f.characterId,
    });
    f.vllm.setReply(replyWith(FIRST));
    const client = clientOf(key);
    const answer = await client.chat.completions.create(
      { model: 'default', messages: [{ role: 'user', content: 'Only the last message is sent.' }] },
      { headers: { 'x-conversation-id': conversation.id } },
    );
    expect(answer.choices[0]?.message.content).toBe(FIRST);
    expect(await countsOf(f, userId)).toEqual([expect.objectContaining({ id: conversation.id, users: 1 })]);
    const elsewhere = await fetch(`${f.gateway.url}/v1/conversations`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(elsewhere.status).toBe(403);
    const missing = await client.chat.completions
      .create(
        { model: 'default', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { 'x-conversation-id': '00000000-0000-4000-8000-000000000000' } },
      )
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("answers errors as OpenAI's clients expect them: a bad key, a bad body, an over-long body, a rate limit", async () => {
    const bad = await clientOf('elp_not-a-key')
      .chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((bad as APIError).code).toBe('invalid_api_key');
    expect((bad as APIError).type).toBe('authentication_error');

    const { token } = await f.register('Cleo');
    const client = clientOf((await personalKey(token)).key);
    const unknownModel = await client.chat.completions
      .create({ model: 'nobody', messages: [{ role: 'user', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(unknownModel).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknownModel as APIError).code).toBe('model_not_found');

    const endsWithReply = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'assistant', content: 'hi' }] })
      .catch((error: unknown) => error);
    expect(endsWithReply).toBeInstanceOf(OpenAI.BadRequestError);
    expect((endsWithReply as APIError).param).toBe('messages');

    const huge = await client.chat.completions
      .create({ model: 'default', messages: [{ role: 'user', content: 'x'.repeat(9 * 1024 * 1024) }] })
      .catch((error: unknown) => error);
    expect((huge as APIError).status).toBe(413);
    expect((huge as APIError).type).toBe('invalid_request_error');

    f.vllm.setReply(replyWith(FIRST));
    let limited: unknown;
    for (let i = 0; i < 10 && !limited; i++) {
      limited = await client.chat.completions
        .create({ model: 'default', messages: [{ role: 'user', content: `message ${i}` }] })
        .then(() => undefined)
        .catch((error: unknown) => error);
    }
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError);
    expect((limited as APIError).headers?.get('retry-after')).toMatch(/^\d+$/);
    expect((limited as APIError).type).toBe('rate_limit_error');
  });

  it("refuses a key at once when its owner's account is disabled or erased, or a staff key's minter demoted", async () => {
    f.vllm.setReply(replyWith(FIRST));
    const ask = (key: string) =>
      clientOf(key)
        .chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'still there?' }] })
        .then(() => 'answered')
        .catch((error: unknown) => (error as APIError).status);

    const disabled = await f.register('Dana');
    const { key: disabledKey } = await personalKey(disabled.token);
    expect(await ask(disabledKey)).toBe('answered');
    await f.db.query(`UPDATE users SET disabled_at = now() WHERE id = $1`, [disabled.userId]);
    expect(await ask(disabledKey)).toBe(401);

    const erased = await f.register('Eli');
    const { key: erasedKey } = await personalKey(erased.token);
    expect((await f.http(erased.token, 'DELETE', '/v1/me')).status).toBe(204);
    expect(await ask(erasedKey)).toBe(401);
    expect(await f.db.query(`SELECT id FROM api_keys WHERE created_by = $1`, [erased.userId])).toEqual([]);

    const admin = await f.registerWithRoles(['admin', 'analyst']);
    const minted = await f.http(admin.token, 'POST', '/v1/api-keys', {
      name: 'exports',
      roles: ['analyst'],
      services: ['chat-gateway'],
    });
    expect(minted.status).toBe(201);
    const listExports = () =>
      fetch(`${f.gateway.url}/v1/exports`, { headers: { 'x-api-key': minted.body.key } }).then(
        (r) => r.status,
      );
    expect(await listExports()).toBe(200);
    await f.db.query(`UPDATE users SET roles = '{user,analyst}' WHERE id = $1`, [admin.userId]);
    expect(await listExports()).toBe(401);
  });

  it('serves the official OpenAI Python SDK the same way', async () => {
    const { token, userId } = await f.register('Py');
    const { key } = await personalKey(token, 'python-sdk');
    f.vllm.setReply(replyWith(SECOND));
    const result = await promisify(execFile)(
      'bash',
      ['tools/python/check.sh', 'pytest', 'tests/test_openai_client.py', '-rs'],
      {
        env: {
          ...process.env,
          ECHOLOOP_OPENAI_BASE_URL: `${f.gateway.url}/v1`,
          ECHOLOOP_OPENAI_KEY: key,
          ECHOLOOP_OPENAI_REPLY: SECOND,
        },
      },
    ).catch((error: { stdout: string; stderr: string }) => error);
    // Every test ran: none skipped for want of the gateway.
    expect(result.stdout).toMatch(/\b3 passed in /);
    expect(result.stdout).not.toMatch(/skipped|failed|error/);
    // Whole, streamed (the history resent) and the swipe: one conversation, two user messages, three replies.
    expect(await countsOf(f, userId)).toEqual([
      expect.objectContaining({ client_name: 'python-sdk', users: 2, replies: 3 }),
    ]);
  }, 120_000);
});

const MIRA_DESCRIPTION_WORD = 'night-shift nurse';
