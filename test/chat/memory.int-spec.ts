import { replyByRules, waitFor } from '@echoloop/testing';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

const SUMMARY = 'Sam is a nurse on night shifts and has a cat called Miso.';

describe('rolling memory of long conversations', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    // A small context window, so a handful of turns overflow it.
    f = await startChatFixture({ LLM_CONTEXT_TOKENS: '700', LLM_MAX_TOKENS: '64' });
    f.vllm.setReply(
      replyByRules(
        [{ when: { systemIncludes: 'Summarize the conversation' }, reply: SUMMARY }],
        'Tell me more.',
      ),
    );
  });

  afterAll(async () => {
    await f?.close();
  });

  it('summarizes turns that fall out of the window off the hot path, and later prompts carry the summary', async () => {
    const { token } = await f.register('Sam');
    const { body } = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    const conversationId: string = body.id;
    const socket = await f.connect(token);
    const long = (i: number) =>
      `Turn ${i}: my cat Miso knocked things over again during my night shift. `.repeat(6);
    for (let i = 0; i < 6; i++) {
      const turn = await sendAndCollect(socket, {
        conversationId,
        content: long(i),
        clientMessageId: `l${i}`,
      });
      expect(turn.done?.content).toBe('Tell me more.');
    }
    const row = await waitFor(
      async () => {
        const [found] = await f.db.query('SELECT summary, summary_through FROM conversations WHERE id = $1', [
          conversationId,
        ]);
        return found?.summary ? found : undefined;
      },
      { what: 'the rolling summary' },
    );
    expect(f.vllm.requests.some((r) => JSON.stringify(r.body).includes('Summarize the conversation'))).toBe(
      true,
    );
    expect(row).toMatchObject({ summary: SUMMARY, summary_through: expect.any(Date) });

    await sendAndCollect(socket, {
      conversationId,
      content: 'what do you remember about me?',
      clientMessageId: 'q',
    });
    const chatRequests = f.vllm.requests.filter(
      (r) => !JSON.stringify(r.body).includes('Summarize the conversation'),
    );
    const system = (chatRequests.at(-1)?.body as { messages: { content: string }[] }).messages[0]?.content;
    expect(system).toContain(`What you remember from earlier in this conversation:\n${SUMMARY}`);
  });
});
