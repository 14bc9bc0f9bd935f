import type { Summary } from './moments';

/**
 * Sufficient statistics of one arm's users for CUPED: each user's metric Y in the experiment and covariate X, the
 * same metric in a pre-period before it (users without one take the pooled mean of X, which adjusts them by 0).
 */
export interface CovariateMoments {
  n: number;
  sumX: number;
  sumY: number;
  sumXX: number;
  sumYY: number;
  sumXY: number;
}

export function emptyCovariateMoments(): CovariateMoments {
  return { n: 0, sumX: 0, sumY: 0, sumXX: 0, sumYY: 0, sumXY: 0 };
}

export function addPair(m: CovariateMoments, x: number, y: number): CovariateMoments {
  if (!Number.isFinite(x) || !Number.isFinite(y))
    throw new RangeError(`values must be finite, got (${x}, ${y})`);
  return {
    n: m.n + 1,
    sumX: m.sumX + x,
    sumY: m.sumY + y,
    sumXX: m.sumXX + x * x,
    sumYY: m.sumYY + y * y,
    sumXY: m.sumXY + x * y,
  };
}

export interface CupedResult {
  /** cov(X, Y) / var(X) over every arm's users together; 0 when X does not vary. */
  theta: number;
  /** Each arm's adjusted Y − θ(X − X̄), as the tests take it: n, mean and sample variance. */
  adjusted: Summary[];
  /** 1 − var(adjusted) / var(Y), within arms, pooled: the share of the variance the pre-period explains. */
  varianceReduction: number;
}

/**
 * CUPED (Deng, Xu, Kohavi and Walker, 2013): the metric minus θ times its pre-period covariate's deviation from the
 * pooled mean. X is measured before assignment, so the adjustment leaves every arm's expected difference as it was
 * and takes out the variance the users brought with them. θ is estimated once over all arms (pooled), as the paper
 * and the usual experimentation platforms do; a per-arm θ would bias the difference.
 */
export function cupedAdjust(arms: readonly CovariateMoments[]): CupedResult {
  const total = arms.reduce(
    (a, m) => ({
      n: a.n + m.n,
      sumX: a.sumX + m.sumX,
      sumY: a.sumY + m.sumY,
      sumXX: a.sumXX + m.sumXX,
      sumYY: a.sumYY + m.sumYY,
      sumXY: a.sumXY + m.sumXY,
    }),
    emptyCovariateMoments(),
  );
  const varX = centred(total.sumXX, total.sumX, total.sumX, total.n);
  const theta = varX > 0 ? centred(total.sumXY, total.sumX, total.sumY, total.n) / varX : 0;
  const meanX = total.n > 0 ? total.sumX / total.n : 0;
  let before = 0;
  let after = 0;
  const adjusted = arms.map((m): Summary => {
    if (m.n === 0) return { n: 0, mean: 0, variance: 0 };
    const mean = (m.sumY - theta * (m.sumX - m.n * meanX)) / m.n;
    if (m.n < 2) return { n: m.n, mean, variance: 0 };
    const vy = centred(m.sumYY, m.sumY, m.sumY, m.n);
    const vx = centred(m.sumXX, m.sumX, m.sumX, m.n);
    const cxy = centred(m.sumXY, m.sumX, m.sumY, m.n);
    const variance = Math.max(0, vy - 2 * theta * cxy + theta * theta * vx);
    before += vy * (m.n - 1);
    after += variance * (m.n - 1);
    return { n: m.n, mean, variance };
  });
  return { theta, adjusted, varianceReduction: before > 0 ? 1 - after / before : 0 };
}

/** Sample covariance (n − 1 denominator) from sums; 0 when n < 2. */
function centred(sumAB: number, sumA: number, sumB: number, n: number): number {
  return n < 2 ? 0 : (sumAB - (sumA * sumB) / n) / (n - 1);
}
