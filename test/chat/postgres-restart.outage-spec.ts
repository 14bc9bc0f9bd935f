import { MessageEntity } from '@echoloop/persistence';
import { replyWith, stackComponent, waitFor } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

describe('PostgreSQL restarted while users chat', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
    f.vllm.setReply(replyWith('Still here.'));
  });

  afterAll(async () => {
    stackComponent('postgres', 'up');
    await f?.close();
  });

  it('a send while the database is down fails fast and retryably; once it is back the same message goes through once', async () => {
    const { token } = await f.register();
    const { body } = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    const conversationId: string = body.id;
    const socket = await f.connect(token);
    const payload = { conversationId, content: 'are you there?', clientMessageId: 'p1' };

    stackComponent('postgres', 'down');
    try {
      const ready = await fetch(`${f.gateway.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ checks: { database: { status: 'down' } } });
      const started = Date.now();
      const failed = await sendAndCollect(socket, payload, 30_000);
      expect(failed.error).toMatchObject({ retryable: true });
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      stackComponent('postgres', 'up');
    }

    await waitFor(async () => (await fetch(`${f.gateway.url}/health/ready`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 500,
      what: 'the gateway to be ready again',
    });
    const retried = await sendAndCollect(socket, payload);
    expect(retried.done).toMatchObject({ content: 'Still here.' });
    expect(await f.db.getRepository(MessageEntity).countBy({ conversationId, clientMessageId: 'p1' })).toBe(
      1,
    );
  });
});
