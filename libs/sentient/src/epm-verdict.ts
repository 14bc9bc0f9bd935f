import { type EpmState, norm } from './epm';

export interface EpmSuccessOptions {
  /** Success is only checked from this turn on (EMPA default 12). */
  minTurns?: number;
  /** Defaults: ε_dist = ε_dir = 0.05·‖P₀‖, ε_energy = ‖P₀‖. */
  epsDistance?: number;
  epsDirection?: number;
  epsEnergy?: number;
}

/** Success: after minTurns, (‖P_t‖ ≤ ε_dist OR projection ≥ −ε_dir) AND E_total ≥ ε_energy. */
export function epmSuccess(state: EpmState, options: EpmSuccessOptions = {}): boolean {
  const last = state.steps.at(-1);
  if (!last || last.turn < (options.minTurns ?? 12)) return false;
  const r0 = norm(state.p0);
  const epsDistance = options.epsDistance ?? 0.05 * r0;
  const epsDirection = options.epsDirection ?? 0.05 * r0;
  const epsEnergy = options.epsEnergy ?? r0;
  return (last.distance <= epsDistance || last.projection >= -epsDirection) && last.energy >= epsEnergy;
}

export interface EpmFailure {
  failed: boolean;
  /** The last 5 ΔE are all negative. */
  collapse: boolean;
  /** The (population) standard deviation of ‖P_t‖ over the last 5 turns is below 0.5. */
  stagnation: boolean;
  /** More than 70% of the last 8 ΔE are negative and the 8 sum to less than −1. */
  regression: boolean;
}

function stdev(values: readonly number[]): number {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
}

/** Failure = collapse OR (stagnation AND regression); each detector needs its full window of turns. */
export function epmFailure(state: EpmState): EpmFailure {
  const last5 = state.steps.slice(-5);
  const last8 = state.steps.slice(-8);
  const collapse = last5.length === 5 && last5.every((step) => step.deltaE < 0);
  const stagnation = last5.length === 5 && stdev(last5.map((step) => step.distance)) < 0.5;
  const regression =
    last8.length === 8 &&
    last8.filter((step) => step.deltaE < 0).length / 8 > 0.7 &&
    last8.reduce((sum, step) => sum + step.deltaE, 0) < -1;
  return { failed: collapse || (stagnation && regression), collapse, stagnation, regression };
}
