import { meanConfidenceInterval } from './confidence-interval';
import { expectCloseTo } from './testing/close-to';

describe('meanConfidenceInterval', () => {
  // scipy: t.interval(level, n - 1, loc=mean, scale=np.sqrt(variance / n))
  it.each([
    [{ n: 50, mean: 10.0, variance: 4.0 }, 0.95, 9.43160628900854, 10.56839371099146],
    [{ n: 12, mean: 3.2, variance: 1.5 }, 0.9, 2.5650588332321984, 3.8349411667678015],
  ])('%p at %p', (summary, level, lo, hi) => {
    const [actualLo, actualHi] = meanConfidenceInterval(summary, level);
    expectCloseTo(actualLo, lo, 1e-12);
    expectCloseTo(actualHi, hi, 1e-12);
  });

  it('defaults to 95%', () => {
    expect(meanConfidenceInterval({ n: 50, mean: 10, variance: 4 })).toEqual(
      meanConfidenceInterval({ n: 50, mean: 10, variance: 4 }, 0.95),
    );
  });

  it('refuses n < 2 and levels outside (0, 1)', () => {
    expect(() => meanConfidenceInterval({ n: 1, mean: 1, variance: 0 })).toThrow(RangeError);
    expect(() => meanConfidenceInterval({ n: 10, mean: 1, variance: 1 }, 1)).toThrow(RangeError);
  });
});
