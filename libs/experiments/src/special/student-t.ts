import { regularizedBeta } from './incomplete-beta';
import { logGamma } from './log-gamma';
import { normalCdf, normalQuantile } from './normal';

const MAX_ITERATIONS = 200;

/** P(|T| > |t|) for Student t with `df` degrees of freedom (df = Infinity is the normal). */
export function studentTTwoSidedTail(t: number, df: number): number {
  assertDf(df);
  if (Number.isNaN(t)) throw new RangeError('Student t tail of NaN');
  if (df === Infinity) return 2 * normalCdf(-Math.abs(t));
  const t2 = t * t;
  // Both x and 1 − x computed directly from t, so neither loses precision to a subtraction.
  return regularizedBeta(df / (df + t2), df / 2, 0.5, t2 / (df + t2));
}

/** Student t CDF. */
export function studentTCdf(t: number, df: number): number {
  const halfTail = studentTTwoSidedTail(t, df) / 2;
  return t < 0 ? halfTail : 1 - halfTail;
}

/** Student t quantile: the t with studentTCdf(t, df) = p. */
export function studentTQuantile(p: number, df: number): number {
  assertDf(df);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`studentTQuantile needs 0 <= p <= 1, got ${p}`);
  if (df === Infinity) return normalQuantile(p);
  if (p === 0.5) return 0;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = Math.min(p, 1 - p); // exact for either branch
  const t = upperTailQuantile(q, df);
  return p < 0.5 ? -t : t;
}

/** The t > 0 with P(T > t) = q < 0.5: Newton on log P(T > t), safeguarded by bisection. */
function upperTailQuantile(q: number, df: number): number {
  const logQ = Math.log(q);
  const tail = (t: number) => studentTTwoSidedTail(t, df) / 2;
  let lo = 0;
  let hi = Math.max(1, -normalQuantile(q));
  while (tail(hi) > q) {
    lo = hi;
    hi *= 2;
  }
  let t = (lo + hi) / 2;
  for (let i = 0; i < MAX_ITERATIONS; i++) {
    const current = tail(t);
    if (current > q) lo = t;
    else hi = t;
    // d/dt log P(T > t) = −pdf(t) / P(T > t)
    let next = t + ((Math.log(current) - logQ) * current) / studentTPdf(t, df);
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    // Newton is quadratic here: once the step is this small the error is far below rounding.
    if (Math.abs(next - t) <= 1e-13 * t) return next;
    t = next;
  }
  return t;
}

function studentTPdf(t: number, df: number): number {
  const logDensity =
    logGamma((df + 1) / 2) -
    logGamma(df / 2) -
    0.5 * Math.log(df * Math.PI) -
    ((df + 1) / 2) * Math.log1p((t * t) / df);
  return Math.exp(logDensity);
}

function assertDf(df: number): void {
  if (!(df > 0)) throw new RangeError(`degrees of freedom must be > 0, got ${df}`);
}
