import { normalQuantile } from './special/normal';

/**
 * The Wilson score interval of a proportion (successes of n), at `confidence` (two-sided). Chosen over the normal
 * (Wald) interval because it stays inside [0, 1] and keeps its coverage at small n and at 0 or n successes, which
 * an evaluation of a few dozen items meets.
 */
export function wilsonInterval(successes: number, n: number, confidence = 0.95): [number, number] {
  if (!(Number.isInteger(n) && n > 0 && Number.isInteger(successes) && successes >= 0 && successes <= n))
    throw new RangeError(
      `wilsonInterval needs integers 0 <= successes <= n, n > 0; got ${successes} of ${n}`,
    );
  const z = normalQuantile(1 - (1 - confidence) / 2);
  const p = successes / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
