import { meanDifference } from './difference';
import { type Summary } from './moments';
import { assertLevel } from './validation';

export interface SequentialOptions {
  /** Variance of the normal mixing distribution over the true difference (units of the metric, squared). */
  tau2?: number;
  /** 1 − the coverage of the confidence sequence. */
  alpha?: number;
}

export interface SequentialResult {
  /** treatment.mean − control.mean, so the result can go straight to guardrailBreached. */
  difference: number;
  likelihoodRatio: number;
  /** Always-valid p-value of this look, min(1, 1/LR); keep the running minimum across looks. */
  pValue: number;
  /** Always-valid confidence sequence for treatment − control at level 1 − alpha. */
  ci: [number, number];
}

/**
 * Fraction of the pooled variance used as the default mixing variance: a prior scale of 0.1 pooled
 * standard deviations, the size of effect a model-checkpoint swap typically has. Smaller tau2
 * detects smaller effects sooner and large ones later; override it when the expected effect differs.
 */
export const DEFAULT_TAU2_FRACTION = 0.01;

/**
 * Mixture sequential probability ratio test (mSPRT) for treatment − control with a normal mixing
 * distribution N(0, tau2) (Johari, Pekelis & Walsh 2017; Howard et al. 2021). With V the squared
 * standard error of the difference d:
 *   LR = sqrt(V/(V+tau2)) · exp(tau2·d² / (2V(V+tau2)))
 *   half-width = sqrt((V(V+tau2)/tau2) · (log((V+tau2)/V) − 2·log(alpha)))
 * Valid under continuous monitoring: the type I error stays ≤ alpha however often one looks, as long
 * as the p-value reported is the running minimum over looks (see runningMinimum). Uses the normal
 * approximation of the difference, so it needs arms of moderate size.
 */
export function sequentialTest(
  control: Summary,
  treatment: Summary,
  options: SequentialOptions = {},
): SequentialResult {
  const alpha = options.alpha ?? 0.05;
  assertLevel(alpha, 'alpha');
  const { difference: d, variance: v } = meanDifference(control, treatment);
  if (v === 0) {
    // Both arms constant: the limit V → 0 of the formulas.
    return { difference: d, likelihoodRatio: d === 0 ? 0 : Infinity, pValue: d === 0 ? 1 : 0, ci: [d, d] };
  }
  const tau2 = options.tau2 ?? DEFAULT_TAU2_FRACTION * pooledVariance(control, treatment);
  if (!(Number.isFinite(tau2) && tau2 > 0)) throw new RangeError(`tau2 must be finite and > 0, got ${tau2}`);
  const logLikelihoodRatio = 0.5 * Math.log(v / (v + tau2)) + (tau2 * d * d) / (2 * v * (v + tau2));
  const halfWidth = Math.sqrt(((v * (v + tau2)) / tau2) * (Math.log1p(tau2 / v) - 2 * Math.log(alpha)));
  return {
    difference: d,
    likelihoodRatio: Math.exp(logLikelihoodRatio),
    pValue: Math.min(1, Math.exp(-logLikelihoodRatio)),
    ci: [d - halfWidth, d + halfWidth],
  };
}

/**
 * A sequential p-value is the running minimum over all looks so far: the per-look value can rise
 * again, and reporting that rise would undo the always-valid guarantee. Pass null on the first look.
 */
export function runningMinimum(previous: number | null, current: number): number {
  return previous === null ? current : Math.min(previous, current);
}

function pooledVariance(control: Summary, treatment: Summary): number {
  return (
    ((control.n - 1) * control.variance + (treatment.n - 1) * treatment.variance) /
    (control.n + treatment.n - 2)
  );
}
