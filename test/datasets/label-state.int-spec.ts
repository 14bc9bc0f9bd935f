import type { AppProcess, FakeVllm } from '@echoloop/testing';
import { waitFor } from '@echoloop/testing';
import { type ChatFixture, startChatFixture } from '../chat/chat-fixture';
import { startJudgedLabeller } from '../experiments/ab-fixture';

const UNJUDGEABLE = 'the judge cannot read this one';

interface Turn {
  turnId: string;
  labelState: { status: string; failures: { component: string; reason: string }[] };
  rewards: Record<string, number | null>;
}

describe("a turn's label state: labelled, or partly failed with the reason, in GET /v1/turns and its filter", () => {
  let f: ChatFixture;
  let labeller: AppProcess;
  let judge: FakeVllm;

  beforeAll(async () => {
    f = await startChatFixture({ TRAINING_CONSENT_DEFAULT: 'true' });
    // The empathy judge answers this conversation without a verdict, whatever it is asked.
    ({ labeller, judge } = await startJudgedLabeller(f, [
      { when: { systemIncludes: 'how empathetic', anyMessageIncludes: UNJUDGEABLE }, reply: 'Hard to say.' },
    ]));
  });
  afterAll(async () => {
    await labeller?.stop();
    await judge?.close();
    await f?.close();
  });

  it('says which components failed and why, and filters by it', async () => {
    const user = await f.register('Robin');
    const { body: key } = await f.http(user.token, 'POST', '/v1/me/api-keys', { name: 'label-state' });
    /** One turn of a new conversation (a history of its own); the conversation's id. */
    const ask = async (content: string): Promise<string> => {
      const res = await fetch(`${f.gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'default', messages: [{ role: 'user', content }] }),
      });
      expect(res.status).toBe(200);
      const [row] = (await f.db.query(
        `SELECT conversation_id AS id FROM messages WHERE role = 'user' AND content = $1`,
        [content],
      )) as { id: string }[];
      return row!.id;
    };
    const judged = await ask('My cat is ill.');
    const failed = await ask(`My dog is ill, ${UNJUDGEABLE}.`);

    const analyst = await f.registerWithRoles(['analyst']);
    const turnsOf = async (query: string): Promise<Turn[]> => {
      const res = await f.http(analyst.token, 'GET', `/v1/turns?${query}`);
      expect(res.status).toBe(200);
      return res.body.items;
    };
    const [ok] = await waitFor(
      async () => {
        const items = await turnsOf(`conversationId=${judged}`);
        return items.length > 0 && items;
      },
      { timeoutMs: 60_000, what: 'the judged turn labelled' },
    );
    const [partial] = await waitFor(
      async () => {
        const items = await turnsOf(`conversationId=${failed}`);
        return items.length > 0 && items;
      },
      { timeoutMs: 60_000, what: 'the unjudgeable turn labelled' },
    );
    expect(ok!.labelState).toEqual({ status: 'labelled', failures: [] });
    expect(partial!.labelState.status).toBe('partially_failed');
    expect(partial!.labelState.failures).toEqual([{ component: 'empathy', reason: expect.any(String) }]);
    expect(partial!.labelState.failures[0]!.reason.length).toBeGreaterThan(0);
    expect(partial!.rewards['empathy']).toBeNull();
    expect(partial!.rewards['humanlike']).not.toBeNull();

    const ids = (items: Turn[]) => items.map((t) => t.turnId);
    const partlyFailed = ids(await turnsOf('labelStatus=partially_failed&limit=100'));
    const allLabelled = ids(await turnsOf('labelStatus=labelled&limit=100'));
    expect(partlyFailed).toContain(partial!.turnId);
    expect(partlyFailed).not.toContain(ok!.turnId);
    expect(allLabelled).toContain(ok!.turnId);
    expect(allLabelled).not.toContain(partial!.turnId);
    expect(ids(await turnsOf('labelStatus=failed&limit=100'))).not.toContain(partial!.turnId);
    expect((await f.http(analyst.token, 'GET', '/v1/turns?labelStatus=broken')).status).toBe(400);
  });
});
