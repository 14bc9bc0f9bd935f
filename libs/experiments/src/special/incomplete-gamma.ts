import { logGamma } from './log-gamma';

// Double precision: a relative step of one ulp is convergence. (A smaller bound than Number.EPSILON can only be met
// by a step of exactly 1, which far in the tail, where adding 2 to b no longer changes it, never comes.)
const EPSILON = Number.EPSILON;
const TINY = 1e-300;
// exp() of anything below this is 0 in double precision.
const LOG_SMALLEST = Math.log(Number.MIN_VALUE);
const MAX_ITERATIONS = 100_000;

/**
 * Regularized incomplete gamma functions P(a, x) and Q(a, x) = 1 − P(a, x).
 * Series for x < a + 1, Lentz continued fraction otherwise (Numerical Recipes §6.2), so the
 * smaller of the two is always computed directly and keeps its relative accuracy in the tails.
 */
export function regularizedGamma(a: number, x: number): { lower: number; upper: number } {
  if (!(a > 0)) throw new RangeError(`regularizedGamma needs a > 0, got ${a}`);
  if (!(x >= 0)) throw new RangeError(`regularizedGamma needs x >= 0, got ${x}`);
  if (x === 0) return { lower: 0, upper: 1 };
  if (x === Infinity) return { lower: 1, upper: 0 };
  const logPrefactor = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    const lower = Math.exp(logPrefactor) * series(a, x);
    return { lower, upper: 1 - lower };
  }
  // The continued fraction is below 1 here, so Q(a, x) is 0 in double precision: no need to evaluate it.
  if (logPrefactor < LOG_SMALLEST) return { lower: 1, upper: 0 };
  const upper = Math.exp(logPrefactor) * continuedFraction(a, x);
  return { lower: 1 - upper, upper };
}

function series(a: number, x: number): number {
  let denominator = a;
  let term = 1 / a;
  let sum = term;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    denominator += 1;
    term *= x / denominator;
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * EPSILON) return sum;
  }
  throw new Error(`regularizedGamma series did not converge (a=${a}, x=${x})`);
}

function continuedFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i <= MAX_ITERATIONS; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) <= EPSILON) return h;
  }
  throw new Error(`regularizedGamma continued fraction did not converge (a=${a}, x=${x})`);
}
