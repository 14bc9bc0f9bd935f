import { TOPICS } from '@echoloop/contracts';
import { findOnTopic, replyWith, testKafka } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

const CASUAL = [
  'omg lol my cat is sooo cute 😂😂 ngl',
  'haha yeah tbh im so tired rn 😅',
  'lol ok whatever u say 😂',
  'nah its fine lol 😎',
];

describe('live persona', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
    f.vllm.setReply(replyWith('Tell me more!'));
  });

  afterAll(async () => {
    await f?.close();
  });

  const lastSystemPrompt = () =>
    (f.vllm.requests.at(-1)?.body as { messages: { content: string }[] }).messages[0]?.content ?? '';

  const chat = async (token: string, messages: string[], prefix: string) => {
    const { body } = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    const socket = await f.connect(token);
    const ids: string[] = [];
    for (const [i, content] of messages.entries()) {
      const turn = await sendAndCollect(socket, {
        conversationId: body.id,
        content,
        clientMessageId: `${prefix}${i}`,
      });
      expect(turn.error).toBeUndefined();
      ids.push((turn.ack as { userMessageId: string }).userMessageId);
    }
    return { conversationId: body.id as string, ids };
  };

  it('infers the user’s style turn by turn, steers the prompt with it, shows its evidence, and puts it in the event', async () => {
    const { token } = await f.register();
    const { conversationId, ids } = await chat(token, CASUAL, 'c');
    expect(lastSystemPrompt()).toContain('Adapt to this user:');
    expect(lastSystemPrompt()).toContain('emoji welcome');

    const profile = await f.http(token, 'GET', '/v1/me/profile');
    expect(profile.body.inferenceEnabled).toBe(true);
    const fields = Object.values(profile.body.fields) as { confidence: number; evidence: string[] }[];
    expect(fields.length).toBeGreaterThan(0);
    expect(fields.flatMap((field) => field.evidence)).toEqual(expect.arrayContaining([ids.at(-1)]));
    expect(fields.every((field) => field.confidence >= 0 && field.confidence <= 1)).toBe(true);

    const events = await findOnTopic(
      testKafka('persona'),
      TOPICS.chatTurnCompleted,
      (m) => String(m.key) === conversationId,
      4,
    );
    const snapshot = JSON.parse(String(events.at(-1)?.value)).payload.personaSnapshot;
    expect(Object.keys(snapshot.fields ?? {}).length).toBeGreaterThan(0);
  });

  it('a reset forgets everything; turning inference off stops it and stores nothing', async () => {
    const { token } = await f.register();
    await chat(token, CASUAL, 'r');
    expect((await f.http(token, 'DELETE', '/v1/me/profile')).status).toBe(204);
    expect((await f.http(token, 'GET', '/v1/me/profile')).body.fields).toEqual({});

    const off = await f.http(token, 'PATCH', '/v1/me/profile', { inferenceEnabled: false });
    expect(off.body).toMatchObject({ inferenceEnabled: false, fields: {} });
    await chat(token, CASUAL, 'o');
    expect(lastSystemPrompt()).not.toContain('Adapt to this user:');
    expect((await f.http(token, 'GET', '/v1/me/profile')).body.fields).toEqual({});
    expect((await f.http(token, 'PATCH', '/v1/me/profile', { inferenceEnabled: 'no' })).status).toBe(400);
  });
});
