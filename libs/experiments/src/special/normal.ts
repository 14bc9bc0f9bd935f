import { regularizedGamma } from './incomplete-gamma';

/**
 * Standard normal CDF Φ(z). Uses erf(x) = P(1/2, x²), so the lower tail keeps its relative
 * accuracy far out (Φ(−30) is not rounded to 0 by a 1 − x subtraction).
 */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) throw new RangeError('normalCdf of NaN');
  if (z === 0) return 0.5;
  const { lower, upper } = regularizedGamma(0.5, (z * z) / 2);
  const tail = 0.5 * upper; // P(Z > |z|)
  return z < 0 ? tail : 0.5 + 0.5 * lower;
}

/** Standard normal density φ(z). */
export function normalPdf(z: number): number {
  return Math.exp((-z * z) / 2) / Math.sqrt(2 * Math.PI);
}

// Acklam's rational approximation (relative error ~1e-9) as the starting point for Halley steps.
const A = [
  -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
  2.506628277459239,
];
const B = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
const C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

/** Standard normal quantile Φ⁻¹(p) for p in [0, 1] (±Infinity at the ends). */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`normalQuantile needs 0 <= p <= 1, got ${p}`);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  // Work in the lower tail, where p is exact; 1 − p is exact for p >= 0.5.
  if (p > 0.5) return -normalQuantile(1 - p);
  let x = initialGuess(p);
  for (let i = 0; i < 3; i++) {
    const u = (normalCdf(x) - p) / normalPdf(x);
    x -= u / (1 + (x * u) / 2);
  }
  return x;
}

function initialGuess(p: number): number {
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(C, q) / (poly(D, q) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return (poly(A, r) * q) / (poly(B, r) * r + 1);
}

/** Horner evaluation of c[0]·x^(n−1) + … + c[n−1]. */
function poly(coefficients: readonly number[], x: number): number {
  return coefficients.reduce((acc, c) => acc * x + c, 0);
}
