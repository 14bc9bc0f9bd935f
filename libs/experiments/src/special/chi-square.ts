import { regularizedGamma } from './incomplete-gamma';

/** Chi-square survival function P(X > x) with `df` degrees of freedom. */
export function chiSquareSurvival(x: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`degrees of freedom must be > 0, got ${df}`);
  if (Number.isNaN(x)) throw new RangeError('chiSquareSurvival of NaN');
  if (x <= 0) return 1;
  return regularizedGamma(df / 2, x / 2).upper;
}
