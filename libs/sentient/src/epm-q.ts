import { EPM_AXES, type EpmState, norm, type Vec3 } from './epm';

/** EPM-Q's constants (EMPA, `empa/evaluation/epmq.py`): ρ's empirical ceiling, and the net-score and energy scales. */
const RHO_MAX = 2.5;
const NET_SCALE = 1.5;
const ENERGY_SCALE = 1.2;
const WEIGHTS = { outcome: 0.4, efficiency: 0.2, stability: 0.4 } as const;

/** One episode's nine EPM-Q indices, each on a 0–100 scale (the energy and net-score indices are not capped). */
export interface EpmQIndices {
  /** Outcome: relative distance improvement, total energy, net Prog + Neg score. */
  rdi: number;
  eTotal: number;
  sNet: number;
  /** Efficiency: energy per turn, mean effective projection (ΔE per trajectory point), path straightness. */
  rho: number;
  sProj: number;
  tau: number;
  /** Stability: share of positive-energy points, mean alignment, the Neg penalty rate. */
  rPos: number;
  align: number;
  pen: number;
}

/** EPM-Q over episodes: the mean of each index, the three dimensions, and the index 0.4·O + 0.2·E + 0.4·S. */
export interface EpmQ {
  episodes: number;
  index: number;
  outcome: number;
  efficiency: number;
  stability: number;
  indices: EpmQIndices;
}

const distance = (a: Vec3, b: Vec3) => norm({ C: a.C - b.C, A: a.A - b.A, P: a.P - b.P });

/**
 * One episode's EPM-Q indices (EMPA's Quantitative EPM, affective-rl.md §2.1), normalised by r₀ = ‖P₀‖. EMPA's
 * trajectory has a point for the start (P₀, no judged turn) and one per turn; the per-point means (ΔE, positive
 * share, the Neg penalty) are taken over all of them, as its code reads, and ρ is the energy per turn. Null when a
 * step lacks the judge's levels (recorded before EPM-Q), which the net score and the penalty need.
 */
export function epmQIndices(state: EpmState): EpmQIndices | null {
  const { steps } = state;
  const turns = steps.length;
  if (steps.some((s) => !s.levels)) return null;
  const initial = norm(state.p0);
  const r0 = initial <= 1e-6 ? 1 : initial;
  const final = steps.at(-1)?.distance ?? initial;
  const rdiRate = initial > 0 ? ((initial - final) / initial) * 100 : 0;
  let net = 0;
  let negatives = 0;
  for (const step of steps)
    for (const axis of EPM_AXES) {
      const level = step.levels?.[axis] ?? { prog: 0, neg: 0 };
      net += level.prog + level.neg;
      negatives += Math.abs(level.neg);
    }
  const points = turns + 1;
  const energyPerTurn = turns > 0 ? state.energy / turns : 0;
  const meanDeltaE = state.energy / points;
  const path = [state.p0, ...steps.map((s) => s.position)];
  let length = 0;
  for (let i = 1; i < path.length; i++) length += distance(path[i - 1] as Vec3, path[i] as Vec3);
  const displacement = distance(state.p0, path.at(-1) as Vec3);
  // Back where it started after moving: EMPA's code gives 0, which the clamp to 1 below reads as a straight path.
  const tortuosity =
    path.length < 2 ? 1 : displacement > 1e-6 ? length / displacement : length < 1e-6 ? 1 : 0;
  const alignments = steps.map((s) => s.alignment);
  const meanAlignment = alignments.length ? alignments.reduce((a, b) => a + b, 0) / alignments.length : 0;
  const positive = steps.filter((s) => s.deltaE > 0).length;
  return {
    rdi: Math.max(0, Math.min(100, (rdiRate + 100) / 2)),
    eTotal: (Math.max(0, state.energy) / (ENERGY_SCALE * r0)) * 100,
    sNet: (Math.max(0, net) / (NET_SCALE * r0)) * 100,
    rho: (Math.max(0, energyPerTurn) / RHO_MAX) * 100,
    sProj: (Math.max(0, meanDeltaE) / RHO_MAX) * 100,
    tau: Math.max(0, ((3 - Math.max(1, tortuosity)) / 2) * 100),
    rPos: (positive / points) * 100,
    align: ((meanAlignment + 1) / 2) * 100,
    pen: Math.max(0, ((3 - negatives / points) / 3) * 100),
  };
}

/** EPM-Q over the episodes that have every index; null when none has. */
export function epmQ(states: readonly EpmState[]): EpmQ | null {
  const all = states.flatMap((s) => {
    const indices = epmQIndices(s);
    return indices ? [indices] : [];
  });
  if (all.length === 0) return null;
  const mean = (key: keyof EpmQIndices) => all.reduce((sum, i) => sum + i[key], 0) / all.length;
  const indices: EpmQIndices = {
    rdi: mean('rdi'),
    eTotal: mean('eTotal'),
    sNet: mean('sNet'),
    rho: mean('rho'),
    sProj: mean('sProj'),
    tau: mean('tau'),
    rPos: mean('rPos'),
    align: mean('align'),
    pen: mean('pen'),
  };
  const outcome = (indices.rdi + indices.eTotal + indices.sNet) / 3;
  const efficiency = (indices.rho + indices.sProj + indices.tau) / 3;
  const stability = (indices.rPos + indices.align + indices.pen) / 3;
  return {
    episodes: all.length,
    index: WEIGHTS.outcome * outcome + WEIGHTS.efficiency * efficiency + WEIGHTS.stability * stability,
    outcome,
    efficiency,
    stability,
    indices,
  };
}
