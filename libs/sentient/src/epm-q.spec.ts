import { type AxisRating, type EpmAxis, epmStart, epmStep, turnIncrement, type Vec3 } from './epm';
import { epmQ, epmQIndices } from './epm-q';

type Levels = Record<EpmAxis, [prog: number, neg: number]>;

/** An episode from P₀ and the judge's (Prog, Neg) levels per turn, as advanceEpm records it. */
function episode(p0: Vec3, turns: Levels[]) {
  return turns.reduce((state, turn) => {
    const levels = Object.fromEntries(
      Object.entries(turn).map(([axis, [prog, neg]]) => [axis, { prog, neg }]),
    ) as Record<EpmAxis, AxisRating>;
    return epmStep(state, turnIncrement(levels), levels);
  }, epmStart(p0));
}

// Computed by hand from the definitions (affective-rl.md §2.1, EMPA's EPM-Q) in a separate Python script: P₀ =
// (−6, −8, 0), r₀ = 10, three turns; trajectory points = turns + 1.
const TURNS: Levels[] = [
  { C: [2, 0], A: [1, 0], P: [0, 0] },
  { C: [0, -1], A: [2, 0], P: [1, -1] },
  { C: [1, 0], A: [2, 0], P: [0, 0] },
];
const EXPECTED = {
  rdi: 78.78679656440357,
  eTotal: 56.66666666666668,
  sNet: 46.666666666666664,
  rho: 90.66666666666669,
  sProj: 68.0,
  tau: 81.5080978479407,
  rPos: 75.0,
  align: 84.85981633315336,
  pen: 83.33333333333334,
};

describe('EPM-Q', () => {
  it('computes the nine indices of an episode', () => {
    const indices = epmQIndices(episode({ C: -6, A: -8, P: 0 }, TURNS));
    for (const [key, value] of Object.entries(EXPECTED))
      expect(indices?.[key as keyof typeof EXPECTED]).toBeCloseTo(value, 9);
  });

  it('weighs outcome 0.4, efficiency 0.2 and stability 0.4, each the mean of its three indices', () => {
    const q = epmQ([episode({ C: -6, A: -8, P: 0 }, TURNS)]);
    expect(q?.outcome).toBeCloseTo(60.7067099659123, 9);
    expect(q?.efficiency).toBeCloseTo(80.05825483820246, 9);
    expect(q?.stability).toBeCloseTo(81.06438322216223, 9);
    expect(q?.index).toBeCloseTo(72.7200882428703, 9);
  });

  it('averages each index over the episodes', () => {
    const good = episode({ C: -6, A: -8, P: 0 }, TURNS);
    const harmful = episode({ C: -6, A: -8, P: 0 }, [{ C: [0, -2], A: [0, -2], P: [0, -2] }]);
    const [a, b] = [epmQIndices(good), epmQIndices(harmful)];
    const q = epmQ([good, harmful]);
    expect(q?.episodes).toBe(2);
    expect(q?.indices.pen).toBeCloseTo(((a?.pen ?? NaN) + (b?.pen ?? NaN)) / 2, 12);
    // All harm: no energy, no net score, the penalty rate 6 / 2 points = 3 takes its index to 0.
    expect(b).toMatchObject({ eTotal: 0, sNet: 0, rPos: 0, pen: 0 });
  });

  it('leaves out an episode recorded before the judge levels were kept, and has no figure without any', () => {
    const old = epmStep(epmStart({ C: -6, A: -8, P: 0 }), { C: 3, A: 1, P: 0 });
    expect(epmQIndices(old)).toBeNull();
    expect(epmQ([old])).toBeNull();
    expect(epmQ([old, episode({ C: -6, A: -8, P: 0 }, TURNS)])?.episodes).toBe(1);
  });
});
