/**
 * Holm's step-down adjustment (Holm, 1979) of a family of p-values: the smallest is multiplied by m, the next by
 * m − 1, and so on, each kept at least as large as the one before and at most 1. Rejecting where the adjusted
 * p-value is below α keeps the family-wise error rate at α under any dependence between the tests.
 *
 * Why Holm and not Benjamini-Hochberg: the experiment's comparisons (every metric of every treatment arm against
 * control) feed automatic decisions (a guardrail stops an experiment, a winner is promoted to every user), where one
 * false finding is a shipped regression; FWER control is what those decisions need, and Holm is uniformly more
 * powerful than Bonferroni. BH controls only the expected share of false findings, which suits exploration.
 * Returns the adjusted p-values in the input's order.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  for (const p of pValues)
    if (!(p >= 0 && p <= 1)) throw new RangeError(`p-values must be in [0, 1], got ${p}`);
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m);
  let running = 0;
  for (const [rank, { p, i }] of order.entries()) {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  }
  return adjusted;
}
