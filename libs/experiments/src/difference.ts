import { type Summary } from './moments';
import { assertEstimable } from './validation';

/** Treatment − control and the standard error of that difference (unpooled). */
export function meanDifference(
  control: Summary,
  treatment: Summary,
): { difference: number; variance: number } {
  assertEstimable(control, 'control');
  assertEstimable(treatment, 'treatment');
  return {
    difference: treatment.mean - control.mean,
    variance: control.variance / control.n + treatment.variance / treatment.n,
  };
}
