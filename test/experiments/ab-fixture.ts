import {
  freshLabellerGroup,
  replyByRules,
  startApp,
  startFakeVllm,
  type AppProcess,
  type FakeVllm,
  type ReplyRule,
} from '@echoloop/testing';
import type { ChatFixture } from '../chat/chat-fixture';

export const LORA_REPLY = 'That sounds really hard, I am here with you.';

/** Scripted judges that prefer the adapter's replies. */
export const AB_JUDGE_RULES: readonly ReplyRule[] = [
  {
    when: { systemIncludes: 'how empathetic', anyMessageIncludes: 'I am here with you' },
    reply: 'Warm.\nVerdict: 5',
  },
  { when: { systemIncludes: 'how empathetic' }, reply: 'Flat.\nVerdict: 2' },
  { when: { systemIncludes: 'like a machine' }, reply: 'Fine.\nVerdict: humanlike' },
  { when: { systemIncludes: 'emotional state' }, reply: 'Fine.\nChange: +2' },
];

/** A reward labeller on the fixture's database, judging with AB_JUDGE_RULES (`rules` come first). */
export async function startJudgedLabeller(
  f: ChatFixture,
  rules: readonly ReplyRule[] = [],
  env: Record<string, string> = {},
): Promise<{ labeller: AppProcess; judge: FakeVllm }> {
  const judge = await startFakeVllm({ model: 'judge', reply: replyByRules([...rules, ...AB_JUDGE_RULES]) });
  const labeller = await startApp('reward-labeller', {
    DATABASE_URL: (f.db.options as { url: string }).url,
    LABELLER_GROUP_ID: await freshLabellerGroup('ab'),
    JUDGE_BASE_URL: judge.url,
    JUDGE_MODEL: 'judge',
    LEAVE_AFTER_MS: '1000',
    LEAVE_SWEEP_MS: '250',
    ...env,
  });
  return { labeller, judge };
}

/** Serves a LoRA adapter on the fixture's vLLM-compatible server and registers it as a checkpoint. */
export async function addLoraCheckpoint(f: ChatFixture, token: string, name: string): Promise<void> {
  await fetch(`${f.vllm.url}/load_lora_adapter`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ lora_name: name, lora_path: `/adapters/${name}` }),
  });
  const created = await f.http(token, 'POST', '/v1/checkpoints', {
    id: name,
    modelName: name,
    endpoints: [{ baseUrl: f.vllm.url }],
    contextTokens: 4096,
  });
  if (created.status !== 201) throw new Error(`checkpoint ${name}: ${created.status}`);
}

/** New users who each send 2 messages in each of `conversations` new conversations; their replies by user id. */
export async function simulateUsers(
  f: ChatFixture,
  users: number,
  conversations: number,
): Promise<Map<string, string[]>> {
  const replies = new Map<string, string[]>();
  for (let i = 0; i < users; i++) {
    const user = await f.register();
    const seen: string[] = [];
    for (let c = 0; c < conversations; c++) {
      const { body: conversation } = await f.http(user.token, 'POST', '/v1/conversations', {
        characterId: f.characterId,
      });
      for (const [t, content] of ['I had an awful day', 'my boss yelled at me'].entries()) {
        const res = await f.http(user.token, 'POST', `/v1/conversations/${conversation.id}/messages`, {
          content,
          clientMessageId: `m${c}${t}`,
        });
        if (res.status !== 201) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`);
        seen.push(res.body.reply.content);
      }
    }
    replies.set(user.userId, seen);
  }
  return replies;
}
