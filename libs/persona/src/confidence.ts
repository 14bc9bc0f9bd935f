import { type NumericRange } from './fields';

/**
 * The share of its weight that evidence keeps after `elapsedMs`. Never above 1: clocks out of order and unknown
 * times (NaN) count as no time at all.
 */
export function decayFactor(halfLifeMs: number, elapsedMs: number): number {
  if (!(elapsedMs > 0) || halfLifeMs === Number.POSITIVE_INFINITY) return 1;
  return 0.5 ** (elapsedMs / halfLifeMs);
}

/** Grows with evidence weight, reaches 1/2 at `halfConfidenceWeight`, never reaches 1. */
export function evidenceConfidence(weight: number, halfConfidenceWeight: number): number {
  return weight <= 0 ? 0 : weight / (weight + halfConfidenceWeight);
}

/**
 * Agreement of numeric observations: 1 when they all agree, 0 at the largest spread the range allows (half the
 * observations at each end, a standard deviation of half the range).
 */
export function numericAgreement(variance: number, range: NumericRange): number {
  const halfRange = (range.max - range.min) / 2;
  return 1 - Math.min(1, Math.sqrt(variance) / halfRange);
}

/** Agreement of category scores: how far the leader is ahead of the runner-up, as a share of all the evidence. */
export function categoricalAgreement(scores: Readonly<Partial<Record<string, number>>>): number {
  let total = 0;
  let top = 0;
  let runnerUp = 0;
  for (const score of Object.values(scores)) {
    if (score === undefined) continue;
    total += score;
    if (score > top) {
      runnerUp = top;
      top = score;
    } else if (score > runnerUp) {
      runnerUp = score;
    }
  }
  return total > 0 ? (top - runnerUp) / total : 0;
}

export function scoreTotal(scores: Readonly<Partial<Record<string, number>>>): number {
  let total = 0;
  for (const score of Object.values(scores)) total += score ?? 0;
  return total;
}
