import { TOPICS } from '@echoloop/contracts';
import { findOnTopic, stackComponent, testKafka, waitFor } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

const TURNS = 5;

describe('Kafka stopped while users chat', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
  });

  afterAll(async () => {
    stackComponent('kafka', 'up');
    await f?.close();
  });

  it('chats keep working, and after Kafka returns every turn is published once per outbox row', async () => {
    const { token } = await f.register();
    const { body } = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    const conversationId: string = body.id;
    const socket = await f.connect(token);

    stackComponent('kafka', 'down');
    const replies: string[] = [];
    try {
      for (let i = 0; i < TURNS; i++) {
        const turn = await sendAndCollect(socket, {
          conversationId,
          content: `message ${i}`,
          clientMessageId: `k${i}`,
        });
        expect(turn.error).toBeUndefined();
        replies.push(turn.done.replyId);
      }
      const ready = await fetch(`${f.gateway.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        checks: { kafka: { status: 'down' }, database: { status: 'up' } },
      });
      const [{ pending }] = await f.db.query(
        `SELECT count(*)::int AS pending FROM outbox WHERE published_at IS NULL`,
      );
      expect(pending).toBe(TURNS);
    } finally {
      stackComponent('kafka', 'up');
    }

    await waitFor(
      async () => {
        const [{ pending }] = await f.db.query(
          `SELECT count(*)::int AS pending FROM outbox WHERE published_at IS NULL`,
        );
        return pending === 0;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: 'the outbox to drain' },
    );
    const mine = (m: { key: Buffer | null }) => String(m.key) === conversationId;
    await findOnTopic(testKafka('outage'), TOPICS.chatTurnCompleted, mine, TURNS, 60_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const published = await findOnTopic(testKafka('outage'), TOPICS.chatTurnCompleted, mine, TURNS, 60_000);
    const turnIds = published.map((m) => JSON.parse(String(m.value)).payload.turnId);
    expect(turnIds).toEqual(replies);
  });
});
