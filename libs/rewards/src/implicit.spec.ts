import { hasImplicitSignal, type ImplicitSignals, implicitReward } from './implicit';

const none: ImplicitSignals = {
  regenerated: false,
  kept: null,
  thumbs: null,
  stars: null,
  edited: false,
  nextMessageLatencyMs: null,
  nextMessageChars: null,
  continued: null,
  returned: false,
};
const reward = (signals: Partial<ImplicitSignals>) => implicitReward({ ...none, ...signals });

describe('implicitReward', () => {
  it('is 0 with no signal, and says so', () => {
    expect(reward({})).toBe(0);
    expect(hasImplicitSignal(none)).toBe(false);
    expect(hasImplicitSignal({ ...none, continued: false })).toBe(true);
    expect(hasImplicitSignal({ ...none, thumbs: 1 })).toBe(true);
  });

  it('lets thumbs decide', () => {
    expect(reward({ thumbs: 1, regenerated: true, continued: false })).toBe(1);
    expect(reward({ thumbs: -1, stars: 5, kept: true })).toBe(-1);
  });

  it('maps stars to (s - 3) / 2: one star is disliked, five liked', () => {
    expect(reward({ stars: 1 })).toBe(-1);
    expect(reward({ stars: 3 })).toBe(0);
    expect(reward({ stars: 4 })).toBe(0.5);
    expect(reward({ stars: 5 })).toBe(1);
  });

  it('scores each behaviour alone', () => {
    expect(reward({ regenerated: true })).toBe(-0.5);
    expect(reward({ kept: false })).toBe(-0.5);
    expect(reward({ regenerated: true, kept: true })).toBe(0.3);
    expect(reward({ edited: true })).toBe(-0.5);
    expect(reward({ continued: true })).toBe(0.2);
    expect(reward({ continued: false })).toBe(-0.2);
    expect(reward({ returned: true })).toBe(0.4);
    expect(reward({ nextMessageLatencyMs: 20_000, nextMessageChars: 150 })).toBe(0.1);
  });

  it('ignores a slow or short next message', () => {
    expect(hasImplicitSignal({ ...none, nextMessageLatencyMs: 120_000, nextMessageChars: 150 })).toBe(false);
    expect(hasImplicitSignal({ ...none, nextMessageLatencyMs: 5_000, nextMessageChars: 10 })).toBe(false);
  });

  it('averages the terms present', () => {
    expect(
      reward({ kept: true, continued: true, nextMessageLatencyMs: 1_000, nextMessageChars: 200 }),
    ).toBeCloseTo(0.2);
    expect(reward({ stars: 5, regenerated: true })).toBeCloseTo(0.25);
    expect(reward({ regenerated: true, edited: true, continued: false })).toBeCloseTo(-0.4);
    // An edit the conversation went on from: the rewrite outweighs carrying on.
    expect(reward({ edited: true, continued: true })).toBeCloseTo(-0.15);
  });
});
