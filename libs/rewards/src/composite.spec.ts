import { compositeReward } from './composite';
import { DEFAULT_REWARD_CONFIG as config, parseRewardConfig } from './config';

describe('compositeReward', () => {
  it('is the weighted mean of all four components', () => {
    const result = compositeReward({ empathy: 1, humanlike: 0.5, live_emotion: -0.5, implicit: 1 }, config);
    expect(result.value).toBeCloseTo(0.35 + 0.125 - 0.15 + 0.1);
    expect(result.version).toBe('composite-v1');
    const expected = { empathy: 0.35, humanlike: 0.25, live_emotion: 0.3, implicit: 0.1 };
    for (const [component, weight] of Object.entries(expected)) {
      expect(result.weights[component as keyof typeof expected]).toBeCloseTo(weight);
    }
  });

  it('renormalises the weights over the components present', () => {
    const result = compositeReward({ empathy: 1, live_emotion: 0 }, config);
    expect(result.weights.empathy).toBeCloseTo(0.35 / 0.65);
    expect(result.weights.live_emotion).toBeCloseTo(0.3 / 0.65);
    expect(result.weights.humanlike).toBeUndefined();
    expect(result.value).toBeCloseTo(0.35 / 0.65);
    expect(compositeReward({ implicit: -1 }, config)).toEqual({
      value: -1,
      version: 'composite-v1',
      weights: { implicit: 1 },
    });
  });

  it('carries the config version', () => {
    const v2 = parseRewardConfig({ version: 'composite-v2' });
    expect(compositeReward({ empathy: 0.5 }, v2).version).toBe('composite-v2');
  });

  it('throws without components, on a non-finite value, and when the present weights are all 0', () => {
    expect(() => compositeReward({}, config)).toThrow(/at least one/);
    expect(() => compositeReward({ empathy: undefined }, config)).toThrow(/at least one/);
    expect(() => compositeReward({ empathy: Number.NaN }, config)).toThrow(/finite/);
    const noImplicit = parseRewardConfig({
      version: 'v',
      weights: { empathy: 1, humanlike: 0, live_emotion: 0, implicit: 0 },
    });
    expect(() => compositeReward({ implicit: 1 }, noImplicit)).toThrow(/weight 0/);
    expect(compositeReward({ implicit: 1, empathy: 0.5 }, noImplicit).value).toBe(0.5);
  });
});
