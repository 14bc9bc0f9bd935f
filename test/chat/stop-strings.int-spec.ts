import { TOPICS } from '@echoloop/contracts';
import { MessageEntity } from '@echoloop/persistence';
import { replyWith } from '@echoloop/testing';
import { randomUUID } from 'node:crypto';
import { sendAndCollect, startChatFixture, type ChatFixture } from './chat-fixture';

const KEPT = 'Of course I remember, you told me about the garden.';
const SLIP = `${KEPT}\nAlex: I am the user now, and I say yes.\nMira: Lovely.`;

describe('replies never speak for the user', () => {
  let f: ChatFixture;

  beforeAll(async () => {
    f = await startChatFixture();
    f.vllm.setReply(replyWith(SLIP));
  });

  afterAll(async () => {
    await f?.close();
  });

  async function turnOf(token: string) {
    const conversation = await f.http(token, 'POST', '/v1/conversations', { characterId: f.characterId });
    const socket = await f.connect(token);
    const turn = await sendAndCollect(socket, {
      conversationId: conversation.body.id,
      content: 'Do you remember what I told you?',
      clientMessageId: randomUUID(),
    });
    expect(turn.error).toBeUndefined();
    const replyId = turn.done.replyId as string;
    const stored = await f.db.getRepository(MessageEntity).findOneByOrFail({ id: replyId });
    const [event] = (await f.db.query(
      `SELECT payload FROM outbox WHERE topic = $1 AND payload->'payload'->>'turnId' = $2`,
      [TOPICS.chatTurnCompleted, replyId],
    )) as { payload: { payload: { assistantMessage: { content: string } } } }[];
    return {
      streamed: turn.deltas.map((d) => d.delta).join(''),
      done: turn.done.content as string,
      stored: stored.content,
      event: event?.payload.payload.assistantMessage.content,
    };
  }

  it("asks the model to stop at lines opened by the user's name, 'You:', 'User:' or the character", async () => {
    const { token } = await f.register('Alex');
    expect(await turnOf(token)).toEqual({ streamed: KEPT, done: KEPT, stored: KEPT, event: KEPT });
    const stop = (f.replyRequests().at(-1) as { stop?: string[] }).stop;
    expect(stop).toEqual(expect.arrayContaining(['\nAlex:', '\nYou:', '\nUser:', '\nMira:']));
  });

  it('cuts the reply itself when the model writes past its stop strings', async () => {
    f.vllm.setFaults({ ignoreStop: true, tokensPerSecond: 200 });
    try {
      const { token } = await f.register('Alex');
      expect(await turnOf(token)).toEqual({ streamed: KEPT, done: KEPT, stored: KEPT, event: KEPT });
    } finally {
      f.vllm.setFaults(undefined);
    }
  });
});
