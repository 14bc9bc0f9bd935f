import { findOnTopic, replyByRules, testKafka, waitFor } from '@echoloop/testing';
import { TOPICS } from '@echoloop/contracts';
import { AB_JUDGE_RULES } from '../experiments/ab-fixture';
import { type LabelledChat, startLabelledChat } from './labelled-chat';

const UNJUDGEABLE = 'the judge cannot read this one';
/** Four judge rounds in all, the retries 0.3, 1.2 and 4.8 s after the round before. */
const RETRIES = { LABEL_RETRY_MAX_ATTEMPTS: '4', LABEL_RETRY_BASE_MS: '300', LABEL_RETRY_SWEEP_MS: '100' };

interface Turn {
  turnId: string;
  labelState: { status: string; failures: { component: string; reason: string }[] };
  rewards: Record<string, number | null>;
}

describe("a turn's label state: labelled, or partly failed with the reason, in GET /v1/turns and its filter; failed labels retried", () => {
  let chat: LabelledChat;
  let exhausted: string;

  const ask = async (content: string) => (await chat.ask(content)).conversationId;
  const turnsOf = (query: string) => chat.turnsOf<Turn>(query);
  const empathyOf = async (conversation: string) => {
    const rows = (await chat.f.db.query(
      `SELECT l.status, l.attempts, l.turn_id AS "turnId" FROM reward_labels l JOIN reward_turns t USING (turn_id)
        WHERE t.conversation_id = $1 AND l.component = 'empathy'`,
      [conversation],
    )) as { status: string; attempts: number; turnId: string }[];
    return rows[0];
  };

  beforeAll(async () => {
    // The empathy judge answers this conversation without a verdict, whatever it is asked.
    chat = await startLabelledChat(
      'label-state',
      [
        {
          when: { systemIncludes: 'how empathetic', anyMessageIncludes: UNJUDGEABLE },
          reply: 'Hard to say.',
        },
      ],
      RETRIES,
    );
  });
  afterAll(() => chat?.close());

  it('says which components failed and why, and filters by it', async () => {
    const judged = await ask('My cat is ill.');
    const failed = await ask(`My dog is ill, ${UNJUDGEABLE}.`);
    exhausted = failed;

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
    expect((await chat.f.http(chat.analystToken, 'GET', '/v1/turns?labelStatus=broken')).status).toBe(400);
  });

  it('judges a failed label again, backing off, until the judge answers; a few rounds at most', async () => {
    // The first turn's empathy judge never answers: four rounds, then it stays failed.
    await waitFor(async () => (await empathyOf(exhausted))?.attempts === 4, {
      timeoutMs: 30_000,
      what: 'the unanswerable label retried three times',
    });
    const later = await ask(`My hamster is ill, ${UNJUDGEABLE} either.`);
    await waitFor(async () => ((await empathyOf(later))?.attempts ?? 0) >= 2, {
      timeoutMs: 30_000,
      what: 'the second label retried once',
    });
    expect((await empathyOf(later))!.status).toBe('failed');
    // The judge is back: the next retry labels it.
    chat.judge.setReply(replyByRules(AB_JUDGE_RULES));
    const [turn] = await waitFor(
      async () => {
        const items = await turnsOf(`conversationId=${later}`);
        return items[0]?.labelState.status === 'labelled' && items;
      },
      { timeoutMs: 30_000, what: 'the retried turn labelled' },
    );
    expect(turn!.labelState.failures).toEqual([]);
    expect(turn!.rewards['empathy']).not.toBeNull();
    // Announced again with its empathy: the experiments and everything downstream see the repair.
    const announced = await findOnTopic(
      testKafka('label-retries'),
      TOPICS.rewardTurnLabelled,
      (m) => JSON.parse(String(m.value)).payload.turnId === turn!.turnId,
      2,
    );
    expect(announced).toHaveLength(2);
    // The first one had used its rounds: the sweeps that repaired the second left it failed.
    expect(await empathyOf(exhausted)).toMatchObject({ status: 'failed', attempts: 4 });
    const metrics = await (await fetch(`${chat.labeller.url}/metrics`)).text();
    expect(metrics).toMatch(
      /labeller_label_retries_total\{[^}]*component="empathy"[^}]*outcome="labelled"[^}]*\} 1/,
    );
  });
});

describe('a turn whose labels are not all in yet is pending: listed when asked for, labelled once they are', () => {
  let chat: LabelledChat;
  const turnsOf = (query: string) => chat.turnsOf<Turn>(query);

  // Nobody leaves within the test: a turn's live emotion waits for the user's next message.
  beforeAll(async () => {
    chat = await startLabelledChat('pending', [], { LEAVE_AFTER_MS: '3600000' });
  });
  afterAll(() => chat?.close());

  it('is pending with the judges’ labels so far, and labelled when the user writes again', async () => {
    const opener = 'My sister is moving abroad.';
    const { content: answer, conversationId: conversation } = await chat.ask(opener);
    const [pending] = await waitFor(
      async () => {
        const items = await turnsOf(`labelStatus=pending&conversationId=${conversation}`);
        return items[0]?.rewards['empathy'] != null && items;
      },
      { timeoutMs: 60_000, what: 'the turn judged, still pending' },
    );
    expect(pending!.labelState).toEqual({ status: 'pending', failures: [] });
    expect(pending!.rewards['live_emotion']).toBeNull();
    // Not finished: not among the labelled turns (nor in exports, which read those).
    expect(await turnsOf(`conversationId=${conversation}`)).toEqual([]);
    expect(await turnsOf(`labelStatus=labelled&conversationId=${conversation}`)).toEqual([]);

    // The user answers: the first turn's live emotion is known, and it is labelled.
    await chat.ask([
      { role: 'user', content: opener },
      { role: 'assistant', content: answer },
      { role: 'user', content: 'I will miss her a lot.' },
    ]);
    const [labelled] = await waitFor(
      async () => {
        const items = await turnsOf(`conversationId=${conversation}`);
        return items.length > 0 && items;
      },
      { timeoutMs: 60_000, what: 'the first turn labelled' },
    );
    expect(labelled!.turnId).toBe(pending!.turnId);
    expect(labelled!.labelState.status).toBe('labelled');
    const stillPending = await turnsOf(`labelStatus=pending&conversationId=${conversation}`);
    expect(stillPending.map((t) => t.turnId)).not.toContain(pending!.turnId);
  });
});
