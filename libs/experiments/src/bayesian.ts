import { meanDifference } from './difference';
import { type Summary } from './moments';
import { normalCdf } from './special/normal';

/**
 * P(treatment mean > control mean) with flat priors and normal approximations of both means (the
 * GrowthBook Gaussian approach): the posterior of the difference is N(d, se²), so the answer is
 * Φ(d/se). With se = 0 it is the limit: 0.5 for no difference, 1 or 0 otherwise.
 * Not an error-controlled decision rule; pair it with welchTest or sequentialTest.
 */
export function probabilityToBeatControl(control: Summary, treatment: Summary): number {
  const { difference, variance } = meanDifference(control, treatment);
  if (variance === 0) return difference === 0 ? 0.5 : difference > 0 ? 1 : 0;
  return normalCdf(difference / Math.sqrt(variance));
}
