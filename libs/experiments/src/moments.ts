/**
 * Sufficient statistics of one arm's metric, mergeable across shards and time windows.
 *
 * The sums are naive (not Welford): variance = (Σx² − (Σx)²/n)/(n − 1) cancels catastrophically when
 * |mean| is many orders of magnitude above the standard deviation. Rewards, ratings and latencies in
 * this project are far from that regime; shift values by a constant first if they are not.
 */
export interface Moments {
  n: number;
  sum: number;
  sumSquares: number;
}

/** Per-arm summary every test takes: sample mean and sample variance (n − 1 denominator). */
export interface Summary {
  n: number;
  mean: number;
  variance: number;
}

export function emptyMoments(): Moments {
  return { n: 0, sum: 0, sumSquares: 0 };
}

export function addValue(m: Moments, x: number): Moments {
  if (!Number.isFinite(x)) throw new RangeError(`metric values must be finite, got ${x}`);
  return { n: m.n + 1, sum: m.sum + x, sumSquares: m.sumSquares + x * x };
}

export function mergeMoments(a: Moments, b: Moments): Moments {
  return { n: a.n + b.n, sum: a.sum + b.sum, sumSquares: a.sumSquares + b.sumSquares };
}

/** Mean 0 when n = 0; variance 0 when n < 2 (clamped at 0 against rounding). */
export function summarize(m: Moments): Summary {
  if (m.n === 0) return { n: 0, mean: 0, variance: 0 };
  const mean = m.sum / m.n;
  if (m.n < 2) return { n: m.n, mean, variance: 0 };
  const variance = (m.sumSquares - (m.sum * m.sum) / m.n) / (m.n - 1);
  return { n: m.n, mean, variance: Math.max(0, variance) };
}
