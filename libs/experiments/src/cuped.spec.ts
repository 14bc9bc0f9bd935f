import { addPair, cupedAdjust, emptyCovariateMoments } from './cuped';
import { addValue, emptyMoments, summarize } from './moments';
import { expectCloseTo } from './testing/close-to';
import { welchTest } from './welch';

// Users' pre-period covariate x and in-experiment metric y, drawn once with numpy (default_rng(7), y = 0.8x + noise,
// treatment +0.04). Reference values, scipy 1.17.1 / numpy, with X, Y every user of both arms:
//   theta = np.cov(X, Y, ddof=1)[0, 1] / np.var(X, ddof=1)
//   adj   = y - theta * (x - X.mean())                 (per arm)
//   stats.ttest_ind(adj_t, adj_c, equal_var=False)    and the same on y unadjusted
//   vr    = 1 - Σ(n-1)·var(adj) / Σ(n-1)·var(y)
const CONTROL = {
  x: [0.5, 0.56, 0.45, 0.32, 0.41, 0.3, 0.51, 0.77, 0.4, 0.38, 0.6, 0.57],
  y: [0.51, 0.5, 0.46, 0.39, 0.36, 0.32, 0.41, 0.65, 0.33, 0.39, 0.52, 0.57],
};
const TREATMENT = {
  x: [0.53, 0.46, 0, 0.39, 0.49, 0.52, 0.19, 0.4, 0.3, 0.34, 0.71, 0.34, 0.49, 0.68],
  y: [0.53, 0.5, 0.15, 0.46, 0.47, 0.56, 0.36, 0.38, 0.42, 0.42, 0.68, 0.51, 0.57, 0.62],
};

const moments = ({ x, y }: { x: number[]; y: number[] }) =>
  x.reduce((m, xi, i) => addPair(m, xi, y[i] ?? NaN), emptyCovariateMoments());
const raw = ({ y }: { y: number[] }) => summarize(y.reduce(addValue, emptyMoments()));

describe('cupedAdjust', () => {
  const result = cupedAdjust([moments(CONTROL), moments(TREATMENT)]);

  it('estimates theta over both arms together and adjusts each arm as scipy does', () => {
    expectCloseTo(result.theta, 0.631229967600401);
    const [control, treatment] = result.adjusted;
    expect([control?.n, treatment?.n]).toEqual([12, 14]);
    expectCloseTo(control?.mean ?? NaN, 0.42918538252139654);
    expectCloseTo(control?.variance ?? NaN, 0.001795961812906306);
    expectCloseTo(treatment?.mean ?? NaN, 0.4921268149816602);
    expectCloseTo(treatment?.variance ?? NaN, 0.0019686472537904154);
    expectCloseTo(result.varianceReduction, 0.8634150432869989);
  });

  it('turns a lift the raw test cannot see into a significant one (Welch on the adjusted arms)', () => {
    const [control, treatment] = result.adjusted;
    const before = welchTest(raw(CONTROL), raw(TREATMENT));
    expectCloseTo(before.t, 0.5008744858416022);
    expectCloseTo(before.pValue, 0.6210520346139933);
    const after = welchTest(control!, treatment!);
    expectCloseTo(after.t, 3.694257882068703);
    expectCloseTo(after.pValue, 0.0011549953445447365);
  });

  it('a covariate that does not vary adjusts nothing', () => {
    const flat = (arm: { y: number[] }) => ({ x: arm.y.map(() => 1), y: arm.y });
    const same = cupedAdjust([moments(flat(CONTROL)), moments(flat(TREATMENT))]);
    expect(same.theta).toBe(0);
    expect(same.varianceReduction).toBeCloseTo(0, 12);
    expectCloseTo(same.adjusted[0]?.mean ?? NaN, raw(CONTROL).mean);
    expectCloseTo(same.adjusted[1]?.variance ?? NaN, raw(TREATMENT).variance);
  });

  it('refuses values that are not finite', () => {
    expect(() => addPair(emptyCovariateMoments(), NaN, 1)).toThrow(RangeError);
  });
});
