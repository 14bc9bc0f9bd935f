import { randomUUID } from 'node:crypto';
import { replyWith, waitFor } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

// Unique per run, and in a form no id or route word could take.
const MARKER = `Mk${randomUUID().slice(0, 8)}Zq`;

describe('logs carry ids and codes, never user text', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
    // The turn's event is refused by the database, so the turn fails with an error that carries the whole
    // event (the user's message and the reply) as query parameters.
    await f.db.query(`
      CREATE FUNCTION refuse_marked_event() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.payload::text LIKE '%${MARKER}%' THEN
          RAISE EXCEPTION 'event refused for the log hygiene test' USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_marked_event BEFORE INSERT ON outbox
        FOR EACH ROW EXECUTE FUNCTION refuse_marked_event();
    `);
    f.vllm.setReply(replyWith(`I hear you say ${MARKER}, tell me more.`));
  });

  afterAll(async () => {
    await f?.close();
  });

  it('a failed turn and requests with text in the query string or the path log ids, not the text', async () => {
    const { token } = await f.register();
    const conversation = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    const socket = await f.connect(token);
    const turn = await sendAndCollect(socket, {
      conversationId: conversation.body.id,
      content: `My secret is ${MARKER}`,
      clientMessageId: randomUUID(),
    });
    expect(turn.error).toMatchObject({ code: 'internal', retryable: true });
    const { replyId } = turn.error as { replyId: string };

    expect((await f.http(token, 'GET', `/v1/conversations?search=${MARKER}`)).status).toBe(200);
    expect((await f.http(token, 'GET', `/v1/conversations/${MARKER}/messages`)).status).toBe(400);
    expect((await f.http(token, 'GET', `/v1/${MARKER}?q=${MARKER}`)).status).toBe(404);
    const json = await f.http(token, 'POST', `/v1/conversations/${conversation.body.id}/messages`, {
      content: `Again ${MARKER}`,
      clientMessageId: randomUUID(),
    });
    expect(json.status).toBe(503);

    // Request lines are written once their response is: wait for the last one, then read everything.
    const logs = await waitFor(() => {
      const text = f.gateway.logs();
      return text.includes('"path":"/v1/:value"') && text;
    });
    expect(logs).toContain('turn failed');
    expect(logs).toContain(replyId);
    expect(logs).toContain('"path":"/v1/conversations/:value/messages"');
    expect(logs).not.toContain(MARKER);
  });
});
