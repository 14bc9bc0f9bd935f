import type { AppProcess, FakeVllm, ReplyRule } from '@echoloop/testing';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { startJudgedLabeller } from '../experiments/ab-fixture';

/**
 * The stack the labelled-turn suites share: the gateway and a labeller whose judges answer by rule, one user who
 * chats through the OpenAI-compatible endpoint with a personal key, and an analyst who reads `GET /v1/turns`.
 */
export interface LabelledChat {
  f: ChatFixture;
  labeller: AppProcess;
  judge: FakeVllm;
  /** The user's personal API key, and the analyst's token. */
  key: string;
  analystToken: string;
  /**
   * One turn: of a new conversation for one message (a history of its own), else of the one the history belongs
   * to. The reply's id and text, and its conversation's id.
   */
  ask(history: string | Message[]): Promise<{ replyId: string; content: string; conversationId: string }>;
  /** The analyst's `GET /v1/turns?<query>` items. */
  turnsOf<T>(query: string): Promise<T[]>;
  close(): Promise<void>;
}

type Message = { role: 'user' | 'assistant'; content: string };

export async function startLabelledChat(
  keyName: string,
  rules: readonly ReplyRule[] = [],
  labellerEnv: Record<string, string> = {},
): Promise<LabelledChat> {
  const f = await startChatFixture({ TRAINING_CONSENT_DEFAULT: 'true' });
  const { labeller, judge } = await startJudgedLabeller(f, rules, labellerEnv);
  const user = await f.register('Robin');
  const { body: key } = await f.http(user.token, 'POST', '/v1/me/api-keys', { name: keyName });
  const analyst = await f.registerWithRoles(['analyst']);
  return {
    f,
    labeller,
    judge,
    key: key.key,
    analystToken: analyst.token,
    async ask(history) {
      const messages = typeof history === 'string' ? [{ role: 'user', content: history }] : history;
      const res = await fetch(`${f.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'default', messages }),
      });
      if (res.status !== 200) throw new Error(`chat completion answered ${res.status}: ${await res.text()}`);
      const { id: replyId, choices } = (await res.json()) as {
        id: string;
        choices: { message: { content: string } }[];
      };
      const [row] = (await f.db.query(`SELECT conversation_id AS id FROM messages WHERE id = $1`, [
        replyId,
      ])) as { id: string }[];
      if (!row) throw new Error(`reply ${replyId} was not stored`);
      return { replyId, content: choices[0]?.message.content ?? '', conversationId: row.id };
    },
    async turnsOf(query) {
      const res = await f.http(analyst.token, 'GET', `/v1/turns?${query}`);
      if (res.status !== 200) throw new Error(`GET /v1/turns answered ${res.status}`);
      return res.body.items;
    },
    async close() {
      await labeller.stop();
      await judge.close();
      await f.close();
    },
  };
}
