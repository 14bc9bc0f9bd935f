import { holmAdjust } from './holm';
import { expectCloseTo } from './testing/close-to';

// Reference values, statsmodels 0.15.0: multipletests(p, method='holm')[1]
const CASES = [
  { p: [0.01, 0.04, 0.03, 0.005, 0.2, 0.04], adjusted: [0.05, 0.12, 0.12, 0.03, 0.2, 0.12] },
  { p: [0.5, 0.001, 0.9, 0.02], adjusted: [1, 0.004, 1, 0.06] },
];

describe('holmAdjust', () => {
  it.each(CASES)('matches statsmodels on $p', ({ p, adjusted }) => {
    const got = holmAdjust(p);
    expect(got).toHaveLength(adjusted.length);
    got.forEach((value, i) => expectCloseTo(value, adjusted[i] ?? NaN));
  });

  it('a family of one is left as it is, and none is empty', () => {
    expect(holmAdjust([0.03])).toEqual([0.03]);
    expect(holmAdjust([])).toEqual([]);
  });

  it('refuses what is not a p-value', () => {
    expect(() => holmAdjust([0.1, 1.5])).toThrow(RangeError);
    expect(() => holmAdjust([NaN])).toThrow(RangeError);
  });
});
