import { chiSquareSurvival } from './special/chi-square';

export interface SampleRatioMismatchResult {
  chiSquare: number;
  degreesOfFreedom: number;
  pValue: number;
  mismatch: boolean;
}

/** GrowthBook's SRM alert threshold. */
export const DEFAULT_SRM_THRESHOLD = 0.001;

/**
 * Pearson chi-square goodness-of-fit test of the observed users per arm against the configured
 * weights: expected = total · weight / Σweights. Arms with weight 0 are left out of the test (users
 * in such an arm are an assignment bug, not a ratio mismatch; check for them separately).
 * With fewer than two weighted arms or no users there is nothing to test: p = 1.
 */
export function sampleRatioMismatch(
  observed: readonly number[],
  weights: readonly number[],
  threshold = DEFAULT_SRM_THRESHOLD,
): SampleRatioMismatchResult {
  const arms = validArms(observed, weights);
  const total = arms.reduce((acc, arm) => acc + arm.count, 0);
  const weightSum = arms.reduce((acc, arm) => acc + arm.weight, 0);
  const degreesOfFreedom = arms.length - 1;
  if (degreesOfFreedom < 1 || total === 0) {
    return { chiSquare: 0, degreesOfFreedom: Math.max(0, degreesOfFreedom), pValue: 1, mismatch: false };
  }
  let chiSquare = 0;
  for (const { count, weight } of arms) {
    const expected = (total * weight) / weightSum;
    chiSquare += (count - expected) ** 2 / expected;
  }
  const pValue = chiSquareSurvival(chiSquare, degreesOfFreedom);
  return { chiSquare, degreesOfFreedom, pValue, mismatch: pValue < threshold };
}

function validArms(observed: readonly number[], weights: readonly number[]) {
  if (observed.length !== weights.length) {
    throw new RangeError(`observed has ${observed.length} arms but weights has ${weights.length}`);
  }
  const arms: { count: number; weight: number }[] = [];
  observed.forEach((count, i) => {
    const weight = weights[i] ?? 0;
    if (!(Number.isFinite(count) && count >= 0)) throw new RangeError(`invalid count ${count} for arm ${i}`);
    if (!(Number.isFinite(weight) && weight >= 0))
      throw new RangeError(`invalid weight ${weight} for arm ${i}`);
    if (weight > 0) arms.push({ count, weight });
  });
  return arms;
}
