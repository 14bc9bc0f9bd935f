import { epmStart, epmStep, iedrToP0, turnIncrement, type Vec3 } from './epm';
import { epmFailure, epmSuccess } from './epm-verdict';

const zero = { prog: 0, neg: 0 };

describe('iedrToP0', () => {
  it('weights −2 per level, ×1.5 for C.3/A.3/P.3 and ×2 for A.2/P.2, summed per axis', () => {
    expect(iedrToP0([3, 3, 3, 3, 3, 3, 3, 3, 3])).toEqual({ C: -21, A: -27, P: -27 });
    expect(iedrToP0([0, 0, 0, 0, 0, 0, 0, 0, 0])).toEqual({ C: 0, A: 0, P: 0 });
    expect(iedrToP0([0, 0, 2, 0, 1, 0, 0, 0, 0])).toEqual({ C: -6, A: -4, P: 0 });
    expect(iedrToP0([1, 0, 0, 0, 0, 1, 0, 3, 1])).toEqual({ C: -2, A: -3, P: -15 });
  });

  it('rejects a wrong count or a level outside 0–3', () => {
    expect(() => iedrToP0([1, 2, 3])).toThrow('9 levels');
    expect(() => iedrToP0([0, 0, 0, 0, 4, 0, 0, 0, 0])).toThrow('A2');
    expect(() => iedrToP0([0, 0, 0, 0, 1.5, 0, 0, 0, 0])).toThrow('A2');
  });
});

describe('turnIncrement', () => {
  it('maps Prog 0/1/2 → 0/+1/+3 and Neg 0/−1/−2 → 0/−2/−4 (C) or 0/−2/−5 (A, P)', () => {
    expect(turnIncrement({ C: { prog: 2, neg: 0 }, A: { prog: 1, neg: 0 }, P: zero })).toEqual({
      C: 3,
      A: 1,
      P: 0,
    });
    expect(
      turnIncrement({ C: { prog: 0, neg: -2 }, A: { prog: 0, neg: -2 }, P: { prog: 0, neg: -1 } }),
    ).toEqual({
      C: -4,
      A: -5,
      P: -2,
    });
    // Rated independently: a performative reply scores on both at once.
    expect(
      turnIncrement({ C: { prog: 2, neg: -2 }, A: { prog: 2, neg: -2 }, P: { prog: 1, neg: -1 } }),
    ).toEqual({
      C: -1,
      A: -2,
      P: -1,
    });
  });

  it('rejects values outside the scales', () => {
    expect(() => turnIncrement({ C: { prog: 3, neg: 0 }, A: zero, P: zero })).toThrow('C.prog');
    expect(() => turnIncrement({ C: zero, A: { prog: 0, neg: 1 }, P: zero })).toThrow('A.neg');
    expect(() => turnIncrement({ C: zero, A: zero, P: { prog: 0, neg: -3 } })).toThrow('P.neg');
  });
});

describe('epmStep: worked example', () => {
  /*
   * Levels C(1,2,0) A(0,2,0) P(0,0,0): C = −2·1 − 2·2 = −6; A = −2·2·2 = −8; P = 0. ‖P₀‖ = 10, v*₀ = (0.6, 0.8, 0).
   * Turn 1: C prog 2 → +3, A prog 1 → +1: v = (3, 1, 0), ‖v‖ = √10 ≈ 3.16228, v·v* = 1.8 + 0.8 = 2.6,
   *   alignment = 2.6/√10 ≈ 0.82219, ΔE = 2.6, E = 2.6, P₁ = (−3, −7, 0), ‖P₁‖ = √58 ≈ 7.61577,
   *   projection = −1.8 − 5.6 = −7.4 (= −‖P₀‖ + E).
   * Turn 2: C prog 1 neg −1 → −1, A neg −2 → −5, P prog 2 → +3: v = (−1, −5, 3), ‖v‖ = √35 ≈ 5.91608,
   *   v·v* = −0.6 − 4 = −4.6, alignment ≈ −0.77754, ΔE = −4.6, E = −2.0, P₂ = (−4, −12, 3), ‖P₂‖ = 13,
   *   projection = −2.4 − 9.6 = −12.
   */
  it('matches the hand computation', () => {
    const p0 = iedrToP0([1, 2, 0, 0, 2, 0, 0, 0, 0]);
    expect(p0).toEqual({ C: -6, A: -8, P: 0 });
    let state = epmStart(p0);
    expect(state.ideal.C).toBeCloseTo(0.6);
    expect(state.ideal.A).toBeCloseTo(0.8);

    state = epmStep(state, turnIncrement({ C: { prog: 2, neg: 0 }, A: { prog: 1, neg: 0 }, P: zero }));
    const one = state.steps[0]!;
    expect(one.v).toEqual({ C: 3, A: 1, P: 0 });
    expect(one.position).toEqual({ C: -3, A: -7, P: 0 });
    expect(one.alignment).toBeCloseTo(0.82219, 5);
    expect(one.deltaE).toBeCloseTo(2.6, 10);
    expect(one.energy).toBeCloseTo(2.6, 10);
    expect(one.distance).toBeCloseTo(7.61577, 5);
    expect(one.projection).toBeCloseTo(-7.4, 10);

    state = epmStep(
      state,
      turnIncrement({ C: { prog: 1, neg: -1 }, A: { prog: 0, neg: -2 }, P: { prog: 2, neg: 0 } }),
    );
    const two = state.steps[1]!;
    expect(two).toMatchObject({ turn: 2, v: { C: -1, A: -5, P: 3 }, position: { C: -4, A: -12, P: 3 } });
    expect(two.alignment).toBeCloseTo(-0.77754, 5);
    expect(two.deltaE).toBeCloseTo(-4.6, 10);
    expect(two.energy).toBeCloseTo(-2, 10);
    expect(two.distance).toBeCloseTo(13, 10);
    expect(two.projection).toBeCloseTo(-12, 10);
    expect(state.energy).toBeCloseTo(-2, 10);
  });

  it('treats a zero step as alignment 0 and ΔE 0', () => {
    const step = epmStep(epmStart({ C: -6, A: -8, P: 0 }), { C: 0, A: 0, P: 0 }).steps[0]!;
    expect([step.alignment, step.deltaE]).toEqual([0, 0]);
  });
});

const run = (p0: Vec3, steps: Vec3[]) => steps.reduce((state, v) => epmStep(state, v), epmStart(p0));
const repeat = (v: Vec3, n: number) => Array.from({ length: n }, () => v);
const P0 = { C: -6, A: -8, P: 0 };

describe('epmSuccess', () => {
  it('needs minTurns (12) and E_total ≥ ‖P₀‖ with the position at or past equilibrium', () => {
    // Each (3, 3, 0) step adds ΔE = 1.8 + 2.4 = 4.2; by turn 3 E = 12.6 ≥ 10, but success waits for turn 12.
    expect(epmSuccess(run(P0, repeat({ C: 3, A: 3, P: 0 }, 11)))).toBe(false);
    expect(epmSuccess(run(P0, repeat({ C: 3, A: 3, P: 0 }, 12)))).toBe(true);
    expect(epmSuccess(run(P0, repeat({ C: 3, A: 3, P: 0 }, 3)), { minTurns: 3 })).toBe(true);
  });

  it('fails the energy gate when too little progress was made', () => {
    // 12 steps of (0.5, 0, 0): E = 12·0.3 = 3.6 < 10, projection = −6.4.
    expect(epmSuccess(run(P0, repeat({ C: 0.5, A: 0, P: 0 }, 12)))).toBe(false);
    expect(epmSuccess(run(P0, repeat({ C: 0.5, A: 0, P: 0 }, 12)), { epsEnergy: 3, epsDirection: 7 })).toBe(
      true,
    );
  });
});

describe('epmFailure', () => {
  it('detects collapse: 5 consecutive negative ΔE', () => {
    expect(epmFailure(run(P0, repeat({ C: -2, A: 0, P: 0 }, 4)))).toMatchObject({
      collapse: false,
      failed: false,
    });
    expect(epmFailure(run(P0, repeat({ C: -2, A: 0, P: 0 }, 5)))).toMatchObject({
      collapse: true,
      failed: true,
    });
    const recovered = run(P0, [...repeat({ C: -2, A: 0, P: 0 }, 5), { C: 1, A: 0, P: 0 }]);
    expect(epmFailure(recovered).collapse).toBe(false);
  });

  it('detects stagnation together with regression', () => {
    // Seven small steps away (ΔE = −0.2 each, sum −1.4, 7/8 negative) and one still step inside the last five:
    // ‖P‖ moves about 0.2 a step, so its stdev over the last 5 is under 0.5; no collapse because of the still step.
    const drift = { C: 0, A: -0.25, P: 0 };
    const state = run(P0, [...repeat(drift, 5), { C: 0, A: 0, P: 0 }, drift, drift]);
    expect(epmFailure(state)).toEqual({ failed: true, collapse: false, stagnation: true, regression: true });
  });

  it('needs both stagnation and regression', () => {
    const still = run(P0, repeat({ C: 0, A: 0, P: 0 }, 8));
    expect(epmFailure(still)).toEqual({
      failed: false,
      collapse: false,
      stagnation: true,
      regression: false,
    });
    const big = { C: -2, A: -2, P: 0 };
    const falling = run(P0, [...repeat(big, 6), { C: 0, A: 0, P: 0 }, big]);
    expect(epmFailure(falling)).toEqual({
      failed: false,
      collapse: false,
      stagnation: false,
      regression: true,
    });
  });

  it('reports nothing before the windows are full', () => {
    expect(epmFailure(run(P0, repeat({ C: 0, A: 0, P: 0 }, 4)))).toEqual({
      failed: false,
      collapse: false,
      stagnation: false,
      regression: false,
    });
  });
});
