import { meanConfidenceInterval } from './confidence-interval';
import { addValue, emptyMoments, summarize } from './moments';

export interface PairedDifference {
  /** Items measured on both sides. */
  n: number;
  /** Mean of `treatment − control` over the items. */
  mean: number;
  /** Two-sided Student t interval of that mean (paired t, n − 1 degrees of freedom). */
  interval: [number, number];
}

/**
 * Treatment against control measured on the same items (the same prompts, the same simulated users): the paired
 * t interval of the mean difference. Pairing removes the items' own spread, so far fewer items separate two models
 * than two independent samples would need.
 */
export function pairedDifference(
  treatment: readonly number[],
  control: readonly number[],
  level = 0.95,
): PairedDifference {
  if (treatment.length !== control.length) {
    throw new RangeError(`paired samples differ in length: ${treatment.length} vs ${control.length}`);
  }
  const moments = treatment.reduce(
    (m, value, i) => addValue(m, value - (control[i] as number)),
    emptyMoments(),
  );
  const summary = summarize(moments);
  return { n: summary.n, mean: summary.mean, interval: meanConfidenceInterval(summary, level) };
}
