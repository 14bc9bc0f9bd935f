import { applyTurn, clampDelta, endCondition, episodeReward, initialState } from './state';

describe('initialState', () => {
  it('starts SAGE evaluation at 40 (B) and RLVER training at 30 (C)', () => {
    expect(initialState()).toEqual({ score: 40, bucket: 'B' });
    expect(initialState(30)).toEqual({ score: 30, bucket: 'C' });
  });
});

describe('applyTurn', () => {
  it.each([
    [40, 25, 50],
    [40, -15, 30],
    [40, 10, 50],
    [40, -10, 30],
    [95, 10, 100],
    [100, 3, 100],
    [5, -10, -5],
  ])('%i %+i → %i (±10 clamp, cap 100, no floor)', (score, delta, expected) => {
    expect(applyTurn({ score, bucket: 'B' }, delta).score).toBe(expected);
  });

  it.each([
    [90, 10, 'S'],
    [89, 10, 'A'],
    [60, 10, 'A'],
    [59, 10, 'B'],
    [30, 10, 'B'],
    [29, 10, 'C'],
    [20, -10, 'C'],
    [19, -10, 'F'],
    [5, -10, 'F'],
  ])('%i %+i lands in %s', (score, delta, bucket) => {
    expect(applyTurn({ score, bucket: 'B' }, delta).bucket).toBe(bucket);
  });

  it('clampDelta keeps integers inside ±10', () => {
    expect(clampDelta(11)).toBe(10);
    expect(clampDelta(-11)).toBe(-10);
    expect(clampDelta(7)).toBe(7);
  });
});

describe('endCondition', () => {
  const at = (score: number) => ({ score, bucket: 'B' as const });

  it('ends on the structured goodbye flag first', () => {
    expect(endCondition(at(50), { goodbye: true, policyTurns: 1 })).toBe('goodbye');
    expect(endCondition(at(100), { goodbye: true, policyTurns: 10 })).toBe('goodbye');
  });

  it('ends at 100 and above', () => {
    expect(endCondition(at(100), { goodbye: false, policyTurns: 1 })).toBe('score_max');
    expect(endCondition(at(99), { goodbye: false, policyTurns: 1 })).toBeNull();
  });

  it('ends below 10: 9 ends, 10 goes on', () => {
    expect(endCondition(at(9), { goodbye: false, policyTurns: 1 })).toBe('score_min');
    expect(endCondition(at(-3), { goodbye: false, policyTurns: 1 })).toBe('score_min');
    expect(endCondition(at(10), { goodbye: false, policyTurns: 1 })).toBeNull();
  });

  it('ends after exactly 10 policy turns (or the configured limit)', () => {
    expect(endCondition(at(50), { goodbye: false, policyTurns: 9 })).toBeNull();
    expect(endCondition(at(50), { goodbye: false, policyTurns: 10 })).toBe('max_turns');
    expect(endCondition(at(50), { goodbye: false, policyTurns: 8, maxPolicyTurns: 8 })).toBe('max_turns');
  });
});

describe('episodeReward', () => {
  it('is max(score / 100, 0)', () => {
    expect(episodeReward(100)).toBe(1);
    expect(episodeReward(55)).toBeCloseTo(0.55);
    expect(episodeReward(0)).toBe(0);
    expect(episodeReward(-7)).toBe(0);
  });
});
