import { pairedDifference } from './paired';
import { expectCloseTo } from './testing/close-to';

describe('pairedDifference', () => {
  // scipy 1.17.1: stats.ttest_rel(t, c).confidence_interval(level), mean = (t - c).mean()
  it.each([
    [
      [0.8, 0.6, 0.7, 0.9, 0.5],
      [0.7, 0.6, 0.7, 0.6, 0.55],
      0.95,
      0.07,
      -0.1033889412462325,
      0.24338894124623256,
    ],
    [
      [52, 40, 61, 48, 55, 47, 50, 58],
      [50, 45, 60, 41, 50, 49, 44, 51],
      0.9,
      2.625,
      -0.3477704671736279,
      5.597770467173627,
    ],
  ])('matches scipy on %p vs %p at %p', (t, c, level, mean, lo, hi) => {
    const result = pairedDifference(t, c, level);
    expect(result.n).toBe(t.length);
    expectCloseTo(result.mean, mean, 1e-12);
    expectCloseTo(result.interval[0], lo, 1e-9);
    expectCloseTo(result.interval[1], hi, 1e-9);
  });

  it('is a point when every item moved by the same amount', () => {
    expect(pairedDifference([1, 1, 1], [0, 0, 0])).toEqual({ n: 3, mean: 1, interval: [1, 1] });
  });

  it('refuses unequal lengths and fewer than two pairs', () => {
    expect(() => pairedDifference([1, 2], [1])).toThrow(RangeError);
    expect(() => pairedDifference([1], [0])).toThrow(RangeError);
  });
});
