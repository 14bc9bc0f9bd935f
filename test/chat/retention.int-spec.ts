import { waitFor } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

describe('retention: conversations past CONVERSATION_TTL_DAYS go, with their messages and labels', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture({ CONVERSATION_TTL_DAYS: '30', RETENTION_SWEEP_MS: '300' });
  });
  afterAll(async () => {
    await f?.close();
  });

  const count = async (sql: string, params: unknown[]) =>
    ((await f.db.query(sql, params)) as [{ n: number }])[0].n;

  it('deletes old conversations and everything hanging on them, and leaves recent ones alone', async () => {
    const { token } = await f.register();
    const socket = await f.connect(token);
    const conversation = async (clientMessageId: string) => {
      const { id } = (await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId })).body;
      const turn = await sendAndCollect(socket, {
        conversationId: id,
        content: 'hello there',
        clientMessageId,
      });
      expect(turn.done).toBeDefined();
      return { id: id as string, replyId: turn.done.replyId as string };
    };
    const old = await conversation('old');
    const recent = await conversation('recent');
    // A label hanging on the old conversation's reply, as the labeller would have stored it.
    await f.db.query(
      `INSERT INTO reward_turns (turn_id, conversation_id, user_id, user_message_id, checkpoint_id, turn, replied_at)
       SELECT m.id, m.conversation_id, c.user_id, m.parent_id, 'base', '{}', m.created_at
         FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.id = $1`,
      [old.replyId],
    );
    await f.db.query(
      `INSERT INTO reward_labels (turn_id, component, labeller_version, status, value)
       VALUES ($1, 'empathy', 'labeller-v1', 'labelled', 0.5)`,
      [old.replyId],
    );
    await f.db.query(`UPDATE conversations SET updated_at = now() - interval '31 days' WHERE id = $1`, [
      old.id,
    ]);

    await waitFor(
      async () => (await count('SELECT count(*)::int AS n FROM conversations WHERE id = $1', [old.id])) === 0,
      {
        what: 'the old conversation to be deleted',
      },
    );
    expect(await count('SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1', [old.id])).toBe(
      0,
    );
    expect(
      await count('SELECT count(*)::int AS n FROM reward_turns WHERE conversation_id = $1', [old.id]),
    ).toBe(0);
    expect(
      await count('SELECT count(*)::int AS n FROM reward_labels WHERE turn_id = $1', [old.replyId]),
    ).toBe(0);

    expect(
      await count('SELECT count(*)::int AS n FROM messages WHERE conversation_id = $1', [recent.id]),
    ).toBe(3);
    expect((await f.http(token, 'GET', `/v1/conversations/${recent.id}/messages`)).status).toBe(200);
    expect((await f.http(token, 'GET', `/v1/conversations/${old.id}/messages`)).status).toBe(404);
  });
});
