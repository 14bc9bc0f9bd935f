/**
 * The EPM C/A/P vector (§2.1), re-implemented from the description: a deficit P₀ from 9 IEDR levels, per-turn
 * increments from Prog/Neg ratings, and the energy and projection along the fixed ideal direction v*₀ = −P₀/‖P₀‖.
 */

export const EPM_AXES = ['C', 'A', 'P'] as const;
export type EpmAxis = (typeof EPM_AXES)[number];
export type Vec3 = Record<EpmAxis, number>;

/** The 9 IEDR indicators, in the order `p0` levels are given. */
export const IEDR_INDICATORS = [
  { id: 'C1', axis: 'C', name: 'complexity', weight: 1 },
  { id: 'C2', axis: 'C', name: 'depth', weight: 1 },
  { id: 'C3', axis: 'C', name: 'priority', weight: 1.5 },
  { id: 'A1', axis: 'A', name: 'intensity', weight: 1 },
  { id: 'A2', axis: 'A', name: 'accessibility', weight: 2 },
  { id: 'A3', axis: 'A', name: 'priority', weight: 1.5 },
  { id: 'P1', axis: 'P', name: 'agency', weight: 1 },
  { id: 'P2', axis: 'P', name: 'value', weight: 2 },
  { id: 'P3', axis: 'P', name: 'priority', weight: 1.5 },
] as const satisfies readonly { id: string; axis: EpmAxis; name: string; weight: number }[];
export type IedrIndicatorId = (typeof IEDR_INDICATORS)[number]['id'];

/** Each level counts −2, times the indicator's weight. */
export const IEDR_BASE_PER_LEVEL = -2;

export const dot = (a: Vec3, b: Vec3): number => a.C * b.C + a.A * b.A + a.P * b.P;
export const norm = (v: Vec3): number => Math.sqrt(dot(v, v));
const add = (a: Vec3, b: Vec3): Vec3 => ({ C: a.C + b.C, A: a.A + b.A, P: a.P + b.P });

/** v/‖v‖; the zero vector stays zero. */
export function normalize(v: Vec3): Vec3 {
  const length = norm(v);
  return length === 0 ? { C: 0, A: 0, P: 0 } : { C: v.C / length, A: v.A / length, P: v.P / length };
}

/** P₀ from the 9 IEDR levels (0–3): per axis, the sum of −2 · level · weight. */
export function iedrToP0(levels: readonly number[]): Vec3 {
  if (levels.length !== IEDR_INDICATORS.length) throw new Error(`IEDR needs 9 levels, got ${levels.length}`);
  const p0: Vec3 = { C: 0, A: 0, P: 0 };
  IEDR_INDICATORS.forEach((indicator, index) => {
    const level = levels[index] ?? Number.NaN;
    if (!Number.isInteger(level) || level < 0 || level > 3)
      throw new Error(`IEDR level ${indicator.id} must be 0–3`);
    p0[indicator.axis] += IEDR_BASE_PER_LEVEL * level * indicator.weight;
  });
  return p0;
}

export interface AxisRating {
  /** Progress 0, 1 or 2. */
  prog: number;
  /** Harm 0, −1 or −2 (rated independently of prog). */
  neg: number;
}

const PROG_VALUE = [0, 1, 3];
const NEG_VALUE: Record<EpmAxis, number[]> = { C: [0, -2, -4], A: [0, -2, -5], P: [0, -2, -5] };

/** v_t from the judge's ratings: per axis Prog {0,1,2} → 0/+1/+3 plus Neg {0,−1,−2} → 0/−2/−4 (C) or 0/−2/−5. */
export function turnIncrement(ratings: Record<EpmAxis, AxisRating>): Vec3 {
  const v: Vec3 = { C: 0, A: 0, P: 0 };
  for (const axis of EPM_AXES) {
    const { prog, neg } = ratings[axis];
    const progValue = PROG_VALUE[prog];
    const negValue = NEG_VALUE[axis][-neg];
    if (!Number.isInteger(prog) || progValue === undefined) throw new Error(`${axis}.prog must be 0, 1 or 2`);
    if (!Number.isInteger(neg) || negValue === undefined) throw new Error(`${axis}.neg must be 0, -1 or -2`);
    v[axis] = progValue + negValue;
  }
  return v;
}

export interface EpmStep {
  turn: number;
  v: Vec3;
  /** P_t = P_{t−1} + v_t. */
  position: Vec3;
  /** ‖P_t‖. */
  distance: number;
  /** (v_t · v*₀) / ‖v_t‖, the cosine to the ideal direction; 0 for a zero step. */
  alignment: number;
  /** ‖v_t‖ · alignment (= v_t · v*₀). */
  deltaE: number;
  /** Σ ΔE so far. */
  energy: number;
  /** P_t · v*₀. */
  projection: number;
  /** The judge's Prog and Neg levels v_t came from (absent from steps recorded before EPM-Q). */
  levels?: Record<EpmAxis, AxisRating>;
}

export interface EpmState {
  p0: Vec3;
  /** v*₀ = normalize(−P₀), fixed for the whole dialogue. */
  ideal: Vec3;
  position: Vec3;
  energy: number;
  steps: EpmStep[];
}

export function epmStart(p0: Vec3): EpmState {
  return { p0, ideal: normalize({ C: -p0.C, A: -p0.A, P: -p0.P }), position: p0, energy: 0, steps: [] };
}

/** Applies one turn's increment (with the judge's levels it came from, when known); returns a new state. */
export function epmStep(state: EpmState, v: Vec3, levels?: Record<EpmAxis, AxisRating>): EpmState {
  const position = add(state.position, v);
  const length = norm(v);
  const alignment = length === 0 ? 0 : dot(v, state.ideal) / length;
  const deltaE = length * alignment;
  const energy = state.energy + deltaE;
  const step: EpmStep = {
    turn: state.steps.length + 1,
    v,
    position,
    distance: norm(position),
    alignment,
    deltaE,
    energy,
    projection: dot(position, state.ideal),
    ...(levels && { levels }),
  };
  return { ...state, position, energy, steps: [...state.steps, step] };
}
