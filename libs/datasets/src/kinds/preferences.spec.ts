import type { LabelledTurn } from './labelled-turns';
import { pairsOf, preferenceRecords } from './preferences';
import { preferenceRecord } from './records';
import { sftRecord, toSftRecord, toVerlRecord } from './training';

let n = 0;
const alternative = (signals: LabelledTurn['signals'], implicit: number): LabelledTurn => ({
  turnId: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  conversationId: 'c',
  userId: 'u',
  userMessageId: 'm',
  checkpointId: 'base',
  experimentId: null,
  armId: null,
  repliedAt: new Date(),
  clientName: null,
  turn: {
    characterId: 'x',
    history: [],
    userMessage: { content: 'hi' },
    assistantMessage: { content: `reply ${n}` },
    personaSnapshot: {},
  },
  signals,
  labellerVersion: 'v1',
  finished: true,
  labels: [
    { component: 'implicit', status: 'labelled', value: implicit, label: null, delta: null, error: null },
  ],
});
const ids = (pairs: ReturnType<typeof pairsOf>) =>
  pairs.map(([chosen, rejected, source]) => [chosen.turnId, rejected.turnId, source]);

describe('preference pairs among the alternatives of one user message', () => {
  it('the kept swipe over each discarded one', () => {
    const [a, b, c] = [
      alternative({ kept: true }, 0),
      alternative({ kept: false }, 0),
      alternative({ kept: false }, 0),
    ];
    expect(ids(pairsOf([a, b, c], { rewardMargin: 0.2 }))).toEqual([
      [a.turnId, b.turnId, 'swipe'],
      [a.turnId, c.turnId, 'swipe'],
    ]);
  });

  it('a better-rated alternative over a worse one; one star is below a thumbs-up, equal ratings make no pair', () => {
    const [up, oneStar, fourStars] = [
      alternative({ thumbs: 1 }, 0),
      alternative({ stars: 1 }, 0),
      alternative({ stars: 4 }, 0),
    ];
    const pairs = ids(pairsOf([up, oneStar, fourStars], { rewardMargin: 2 }));
    expect(pairs).toEqual(
      expect.arrayContaining([
        [up.turnId, oneStar.turnId, 'rating'],
        [up.turnId, fourStars.turnId, 'rating'],
        [fourStars.turnId, oneStar.turnId, 'rating'],
      ]),
    );
    expect(pairs).toHaveLength(3);
    expect(
      pairsOf([alternative({ stars: 3 }, 0), alternative({ stars: 3 }, 0)], { rewardMargin: 2 }),
    ).toEqual([]);
  });

  it('regenerations whose rewards differ by the margin, only when the user said nothing stronger', () => {
    const [good, bad, close] = [alternative({}, 0.9), alternative({}, 0.1), alternative({}, 0.8)];
    expect(ids(pairsOf([good, bad, close], { rewardMargin: 0.5 }))).toEqual([
      [good.turnId, bad.turnId, 'reward_margin'],
      [close.turnId, bad.turnId, 'reward_margin'],
    ]);
    // A swipe the other way wins over the rewards: one pair, from the swipe.
    const [keptWorse, discardedBetter] = [
      alternative({ kept: true }, 0.1),
      alternative({ kept: false }, 0.9),
    ];
    expect(ids(pairsOf([keptWorse, discardedBetter], { rewardMargin: 0.5 }))).toEqual([
      [keptWorse.turnId, discardedBetter.turnId, 'swipe'],
    ]);
  });
});

const privacy = { pseudonymKey: 'k' };
const editedAt = '2026-11-24T10:00:00.000Z';
const edited = (content: string, signals: LabelledTurn['signals'] = {}, implicit = 0) =>
  alternative({ ...signals, edit: { content, editedAt } }, implicit);
async function* stream(turns: LabelledTurn[]) {
  yield* turns;
}
const collect = async <T>(records: AsyncIterable<T>) => {
  const all: T[] = [];
  for await (const r of records) all.push(r);
  return all;
};

describe('an edit as training data', () => {
  it("is a pair, the user's text over the model's, first among its message's pairs; its PII redacted", async () => {
    const mine = edited('Call me at jane@example.com, I am here for you.', { kept: true });
    const other = alternative({ kept: false }, 0);
    const records = await collect(preferenceRecords(stream([mine, other]), privacy));
    expect(records.map((r) => r.source)).toEqual(['edit', 'swipe']);
    const [edit] = records;
    expect(preferenceRecord.parse(edit)).toMatchObject({
      chosen: [{ role: 'assistant', content: expect.stringContaining('I am here for you.') }],
      rejected: [{ role: 'assistant', content: mine.turn.assistantMessage.content }],
      chosenTurnId: mine.turnId,
      rejectedTurnId: mine.turnId,
      chosenRewards: { implicit: null, composite: null },
      rejectedRewards: { implicit: 0 },
    });
    expect(JSON.stringify(edit)).not.toContain('jane@example.com');
  });

  it('an edit taken back is no pair', async () => {
    const undone = alternative({ edit: null }, 0);
    expect(await collect(preferenceRecords(stream([undone]), privacy))).toEqual([]);
  });

  it("is an SFT example whatever the model's reply scored, never the model's text it replaced", () => {
    const badReply = edited('A better reply.', { kept: false }, -1);
    const record = sftRecord.parse(toSftRecord(badReply, privacy, 0.5));
    expect(record).toMatchObject({ source: 'edit', reward: null });
    expect(record.messages.at(-1)).toEqual({ role: 'assistant', content: 'A better reply.' });
    // Unedited, the same reply is below the bar; a good one is imitated from its reward.
    expect(toSftRecord(alternative({ kept: false }, -1), privacy, 0.5)).toBeNull();
    expect(toSftRecord(alternative({}, 0.9), privacy, 0.5)).toMatchObject({ source: 'reward' });
  });

  it("is VeRL's reference for its message, ahead of a liked alternative", () => {
    const liked = alternative({ kept: true }, 0);
    const mine = edited('What I wanted to hear.');
    expect(toVerlRecord(liked, [liked, mine], privacy, 0).reward_model.ground_truth).toBe(
      'What I wanted to hear.',
    );
    expect(toVerlRecord(liked, [liked], privacy, 0).reward_model.ground_truth).toBe(
      liked.turn.assistantMessage.content,
    );
  });
});
