import { runningMinimum, sequentialTest } from './sequential';
import { expectCloseTo } from './testing/close-to';

// Reference values: numpy (float64) with V = c.var/c.n + t.var/t.n, d = t.mean - c.mean,
//   tau2 = 0.01 * ((c.n-1)*c.var + (t.n-1)*t.var) / (c.n+t.n-2)       (unless given)
//   LR   = np.sqrt(V/(V+tau2)) * np.exp(tau2*d**2/(2*V*(V+tau2)));  p = min(1, 1/LR)
//   hw   = np.sqrt((V*(V+tau2)/tau2) * (np.log((V+tau2)/V) - 2*np.log(alpha)));  ci = (d-hw, d+hw)
describe('sequentialTest', () => {
  it('matches the mSPRT formulas with the default tau2', () => {
    // tau2 = 0.0023434747235387045
    const result = sequentialTest(
      { n: 2000, mean: 0.61, variance: 0.2379 },
      { n: 1800, mean: 0.64, variance: 0.2304 },
    );
    expectCloseTo(result.likelihoodRatio, 1.6053132584603615, 1e-10);
    expectCloseTo(result.pValue, 0.622931377866454, 1e-10);
    expectCloseTo(result.ci[0], -0.017718985871247345, 1e-10);
    expectCloseTo(result.ci[1], 0.0777189858712474, 1e-10);
    expectCloseTo(result.difference, 0.03, 1e-12);
  });

  it('matches the mSPRT formulas with tau2 = 0.5, alpha = 0.1', () => {
    const result = sequentialTest(
      { n: 50, mean: 10.0, variance: 4.0 },
      { n: 50, mean: 11.0, variance: 4.0 },
      { tau2: 0.5, alpha: 0.1 },
    );
    expectCloseTo(result.likelihoodRatio, 5.253482723285446, 1e-10);
    expectCloseTo(result.pValue, 0.19034991693560108, 1e-10);
    expectCloseTo(result.ci[0], -0.12778379428843722, 1e-10);
    expectCloseTo(result.ci[1], 2.1277837942884372, 1e-10);
  });

  it('is more conservative than the fixed-horizon interval', () => {
    // Welch 95% CI for the same data is [-0.00081, 0.06081]; the confidence sequence must be wider.
    const { ci } = sequentialTest(
      { n: 2000, mean: 0.61, variance: 0.2379 },
      { n: 1800, mean: 0.64, variance: 0.2304 },
    );
    expect(ci[0]).toBeLessThan(-0.00081);
    expect(ci[1]).toBeGreaterThan(0.06081);
  });

  it('stays finite-or-limit (no NaN) when the likelihood ratio overflows', () => {
    const result = sequentialTest({ n: 1e6, mean: 0, variance: 1 }, { n: 1e6, mean: 1, variance: 1 });
    expect(result.likelihoodRatio).toBe(Infinity);
    expect(result.pValue).toBe(0);
    const moderate = sequentialTest({ n: 1000, mean: 0, variance: 1 }, { n: 1000, mean: 0.3, variance: 1 });
    expect(moderate.pValue).toBeGreaterThan(0);
    expect(moderate.pValue).toBeLessThan(1e-6);
  });

  it('handles zero variance and rejects bad options', () => {
    const constant = { n: 5, mean: 1, variance: 0 };
    expect(sequentialTest(constant, constant)).toEqual({
      difference: 0,
      likelihoodRatio: 0,
      pValue: 1,
      ci: [0, 0],
    });
    expect(sequentialTest(constant, { ...constant, mean: 2 }).pValue).toBe(0);
    const arm = { n: 5, mean: 1, variance: 1 };
    expect(() => sequentialTest(arm, arm, { tau2: 0 })).toThrow(RangeError);
    expect(() => sequentialTest(arm, arm, { alpha: 0 })).toThrow(RangeError);
  });
});

describe('runningMinimum', () => {
  it('keeps the always-valid p-value monotone across looks', () => {
    const looks = [0.8, 0.3, 0.5, 0.04, 0.2];
    const reported: number[] = [];
    let previous: number | null = null;
    for (const p of looks) {
      previous = runningMinimum(previous, p);
      reported.push(previous);
    }
    expect(reported).toEqual([0.8, 0.3, 0.3, 0.04, 0.04]);
  });
});
