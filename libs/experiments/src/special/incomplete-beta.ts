import { logGamma } from './log-gamma';

const EPSILON = 1e-16;
const TINY = 1e-300;
const MAX_ITERATIONS = 100_000;

/**
 * Regularized incomplete beta I_x(a, b) by the Lentz continued fraction (Numerical Recipes §6.4).
 * `complement` is 1 − x; callers that know it exactly should pass it, because computing it by
 * subtraction loses the relative precision that the tails depend on.
 */
export function regularizedBeta(x: number, a: number, b: number, complement = 1 - x): number {
  if (!(a > 0 && b > 0)) throw new RangeError(`regularizedBeta needs a, b > 0, got ${a}, ${b}`);
  if (!(x >= 0 && x <= 1)) throw new RangeError(`regularizedBeta needs 0 <= x <= 1, got ${x}`);
  if (x === 0) return 0;
  if (complement === 0) return 1;
  const logFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(complement);
  const front = Math.exp(logFront);
  // The fraction converges fast only below the mean; above it use I_x(a, b) = 1 − I_{1−x}(b, a).
  if (x < (a + 1) / (a + b + 2)) return (front * continuedFraction(x, a, b)) / a;
  return 1 - (front * continuedFraction(complement, b, a)) / b;
}

function continuedFraction(x: number, a: number, b: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITERATIONS; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) return h;
  }
  throw new Error(`regularizedBeta did not converge (x=${x}, a=${a}, b=${b})`);
}
