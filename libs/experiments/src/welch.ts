import { meanDifference } from './difference';
import { type Summary } from './moments';
import { studentTQuantile, studentTTwoSidedTail } from './special/student-t';
import { assertLevel } from './validation';

export interface WelchResult {
  /** treatment.mean − control.mean */
  difference: number;
  /** difference / control.mean; null when the control mean is 0. */
  relativeDifference: number | null;
  standardError: number;
  degreesOfFreedom: number;
  t: number;
  /** Two-sided. */
  pValue: number;
  ci: [number, number];
}

/**
 * Welch's unequal-variance t test of treatment − control (fixed horizon: valid for one look only;
 * use sequentialTest when peeking).
 *
 * Degenerate standard error 0 (both arms constant): t and the p-value follow the limit (p = 1 for
 * no difference, p = 0 otherwise) and the interval collapses to the difference; the degrees of
 * freedom, then 0/0, are reported as n₁ + n₂ − 2.
 */
export function welchTest(control: Summary, treatment: Summary, level = 0.95): WelchResult {
  assertLevel(level);
  const { difference, variance } = meanDifference(control, treatment);
  const relativeDifference = control.mean === 0 ? null : difference / control.mean;
  const standardError = Math.sqrt(variance);
  if (standardError === 0) {
    return {
      difference,
      relativeDifference,
      standardError,
      degreesOfFreedom: control.n + treatment.n - 2,
      t: difference === 0 ? 0 : Math.sign(difference) * Infinity,
      pValue: difference === 0 ? 1 : 0,
      ci: [difference, difference],
    };
  }
  const degreesOfFreedom = welchSatterthwaite(control, treatment, variance);
  const t = difference / standardError;
  const halfWidth = studentTQuantile((1 + level) / 2, degreesOfFreedom) * standardError;
  return {
    difference,
    relativeDifference,
    standardError,
    degreesOfFreedom,
    t,
    pValue: studentTTwoSidedTail(t, degreesOfFreedom),
    ci: [difference - halfWidth, difference + halfWidth],
  };
}

/** V² / Σ (vᵢ/nᵢ)²/(nᵢ − 1), written with shares of V so tiny variances do not underflow. */
function welchSatterthwaite(control: Summary, treatment: Summary, variance: number): number {
  const term = (s: Summary) => (s.variance / s.n / variance) ** 2 / (s.n - 1);
  return 1 / (term(control) + term(treatment));
}
