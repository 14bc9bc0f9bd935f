import type { LabelledTurn } from './labelled-turns';
import { pairsOf } from './preferences';

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
  turn: {
    characterId: 'x',
    history: [],
    userMessage: { content: 'hi' },
    assistantMessage: { content: `reply ${n}` },
    personaSnapshot: {},
  },
  signals,
  labellerVersion: 'v1',
  labels: [{ component: 'implicit', status: 'labelled', value: implicit, label: null, delta: null }],
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
