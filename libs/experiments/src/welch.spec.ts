import { addValue, emptyMoments, summarize } from './moments';
import { expectCloseTo } from './testing/close-to';
import { welchTest } from './welch';

// Reference values, scipy 1.17.1, with (c, t) = (control, treatment) summaries:
//   res = stats.ttest_ind_from_stats(t.mean, sqrt(t.var), t.n, c.mean, sqrt(c.var), c.n, equal_var=False)
//   se  = sqrt(c.var/c.n + t.var/t.n)
//   df  = (c.var/c.n + t.var/t.n)**2 / ((c.var/c.n)**2/(c.n-1) + (t.var/t.n)**2/(t.n-1))
//   ci  = d ∓ stats.t.ppf(0.975, df) * se, with d = t.mean - c.mean
const CASES = [
  {
    name: 'equal n, equal variance',
    control: { n: 50, mean: 10.0, variance: 4.0 },
    treatment: { n: 50, mean: 11.0, variance: 4.0 },
    expected: {
      t: 2.5,
      pValue: 0.014079755374771975,
      degreesOfFreedom: 97.99999999999999,
      standardError: 0.4,
      ci: [0.20621301819660742, 1.7937869818033927],
      relativeDifference: 0.1,
    },
  },
  {
    name: 'unequal n and variances, treatment worse',
    control: { n: 12, mean: 3.2, variance: 1.5 },
    treatment: { n: 40, mean: 2.7, variance: 6.25 },
    expected: {
      t: -0.9428090415820635,
      pValue: 0.3516344467829391,
      degreesOfFreedom: 38.65294771968854,
      standardError: 0.5303300858899106,
      ci: [-1.5730018753175297, 0.5730018753175297],
      relativeDifference: -0.15625,
    },
  },
  {
    name: 'large conversion-like arms',
    control: { n: 2000, mean: 0.61, variance: 0.2379 },
    treatment: { n: 1800, mean: 0.64, variance: 0.2304 },
    expected: {
      t: 1.9090475221402539,
      pValue: 0.05633185141829111,
      degreesOfFreedom: 3767.8653325947603,
      standardError: 0.015714642853084507,
      ci: [-0.0008100311829398431, 0.0608100311829399],
      relativeDifference: 0.04918032786885251,
    },
  },
];

describe('welchTest', () => {
  it.each(CASES)('$name', ({ control, treatment, expected }) => {
    const result = welchTest(control, treatment);
    expectCloseTo(result.difference, treatment.mean - control.mean, 1e-15);
    expectCloseTo(result.t, expected.t, 1e-10);
    expectCloseTo(result.pValue, expected.pValue, 1e-10);
    expectCloseTo(result.degreesOfFreedom, expected.degreesOfFreedom, 1e-10);
    expectCloseTo(result.standardError, expected.standardError, 1e-12);
    expectCloseTo(result.ci[0], expected.ci[0] ?? NaN, 1e-10);
    expectCloseTo(result.ci[1], expected.ci[1] ?? NaN, 1e-10);
    expectCloseTo(result.relativeDifference ?? NaN, expected.relativeDifference, 1e-12);
  });

  it('matches scipy on raw data', () => {
    // res = stats.ttest_ind(treatment, control, equal_var=False); ci = res.confidence_interval(0.95)
    const summaryOf = (xs: number[]) => summarize(xs.reduce(addValue, emptyMoments()));
    const control = summaryOf([3.1, 2.7, 4.4, 3.9, 3.0, 2.2, 3.6, 4.1]);
    const treatment = summaryOf([4.2, 3.8, 5.1, 4.7, 3.3, 4.9, 5.6, 4.0, 4.4, 3.5, 6.0]);
    const result = welchTest(control, treatment);
    expectCloseTo(result.t, 3.0395567141714004, 1e-10);
    expectCloseTo(result.pValue, 0.0076895752683256964, 1e-10);
    expectCloseTo(result.degreesOfFreedom, 16.276141039352787, 1e-10);
    expectCloseTo(result.ci[0], 0.34146166098729824, 1e-10);
    expectCloseTo(result.ci[1], 1.9085383390127, 1e-10);
  });

  it('returns null relative difference when the control mean is 0', () => {
    expect(
      welchTest({ n: 10, mean: 0, variance: 1 }, { n: 10, mean: 1, variance: 1 }).relativeDifference,
    ).toBeNull();
  });

  it('handles zero variance without NaN', () => {
    const same = welchTest({ n: 5, mean: 1, variance: 0 }, { n: 5, mean: 1, variance: 0 });
    expect(same).toMatchObject({
      difference: 0,
      standardError: 0,
      t: 0,
      pValue: 1,
      ci: [0, 0],
      degreesOfFreedom: 8,
    });
    const apart = welchTest({ n: 5, mean: 1, variance: 0 }, { n: 5, mean: 2, variance: 0 });
    expect(apart).toMatchObject({ difference: 1, pValue: 0, t: Infinity, ci: [1, 1] });
    // One constant arm: Welch–Satterthwaite reduces to the other arm's n − 1.
    expect(
      welchTest({ n: 5, mean: 1, variance: 0 }, { n: 9, mean: 2, variance: 3 }).degreesOfFreedom,
    ).toBeCloseTo(8, 12);
  });

  it('refuses arms with fewer than 2 observations', () => {
    expect(() => welchTest({ n: 1, mean: 1, variance: 0 }, { n: 5, mean: 2, variance: 1 })).toThrow(
      RangeError,
    );
  });
});
