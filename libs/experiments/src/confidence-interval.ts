import { type Summary } from './moments';
import { studentTQuantile } from './special/student-t';
import { assertEstimable, assertLevel } from './validation';

/** Two-sided Student t interval for one arm's mean, n − 1 degrees of freedom. */
export function meanConfidenceInterval(s: Summary, level = 0.95): [number, number] {
  assertEstimable(s, 'meanConfidenceInterval');
  assertLevel(level);
  const halfWidth = studentTQuantile((1 + level) / 2, s.n - 1) * Math.sqrt(s.variance / s.n);
  return [s.mean - halfWidth, s.mean + halfWidth];
}
