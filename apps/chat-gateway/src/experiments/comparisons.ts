import {
  cupedAdjust,
  holmAdjust,
  probabilityToBeatControl,
  runningMinimum,
  sequentialTest,
  type Summary,
  welchTest,
} from '@echoloop/experiments';
import type { ArmCovariateMoments } from './experiments.repository';

export const ALPHA = 0.05;

/** The statistic, or null while an arm has too few users for it (fewer than 2). */
export function orNull<T>(compute: () => T): T | null {
  try {
    return compute();
  } catch (error) {
    if (error instanceof RangeError) return null;
    throw error;
  }
}

/** One metric's CUPED adjustment across the experiment's arms, or null when no user has a pre-period value. */
export interface MetricCuped {
  theta: number;
  varianceReduction: number;
  adjusted: Map<string, Summary>;
  withPrePeriod: Map<string, number>;
}

/** CUPED over every arm of the metric at once (one pooled θ); null unless every arm has users with a value. */
export function cupedOf(
  armIds: readonly string[],
  metric: string,
  rows: readonly ArmCovariateMoments[],
): MetricCuped | null {
  const arms = armIds.map((id) => rows.find((r) => r.armId === id && r.metric === metric));
  if (arms.some((a) => !a) || arms.every((a) => (a?.withPrePeriod ?? 0) === 0)) return null;
  const present = arms as ArmCovariateMoments[];
  const { theta, adjusted, varianceReduction } = cupedAdjust(present);
  return {
    theta,
    varianceReduction,
    adjusted: new Map(present.map((a, i) => [a.armId, adjusted[i] as Summary])),
    withPrePeriod: new Map(present.map((a) => [a.armId, a.withPrePeriod])),
  };
}

/**
 * Treatment against control on one metric: Welch on the raw per-user values; with a pre-period, Welch on the CUPED
 * adjusted values too; the always-valid sequential test (on the adjusted values when there are, kept under its own
 * running minimum: `sequentialPValues` is updated); the Bayesian probability to beat control.
 */
export function compare(
  metric: string,
  controlId: string,
  armId: string,
  base: Summary,
  arm: Summary,
  cuped: MetricCuped | null,
  sequentialPValues: Record<string, number>,
) {
  const welch = orNull(() => welchTest(base, arm));
  const cupedBase = cuped?.adjusted.get(controlId);
  const cupedArm = cuped?.adjusted.get(armId);
  const adjusted = cupedBase && cupedArm ? orNull(() => welchTest(cupedBase, cupedArm)) : null;
  const seq = orNull(() => sequentialTest(cupedBase ?? base, cupedArm ?? arm, { alpha: ALPHA }));
  const key = cupedBase && cupedArm ? `cuped:${metric}:${armId}` : `${metric}:${armId}`;
  if (seq) sequentialPValues[key] = runningMinimum(sequentialPValues[key] ?? null, seq.pValue);
  const pValue = sequentialPValues[key] ?? null;
  return {
    armId,
    welch: welch && {
      difference: welch.difference,
      relativeDifference: welch.relativeDifference,
      pValue: welch.pValue,
      ci: welch.ci,
    },
    cuped:
      cuped && adjusted
        ? {
            difference: adjusted.difference,
            pValue: adjusted.pValue,
            ci: adjusted.ci,
            theta: cuped.theta,
            varianceReduction: cuped.varianceReduction,
            usersWithPrePeriod: cuped.withPrePeriod.get(armId) ?? 0,
          }
        : null,
    /** Holm-adjusted across every metric and treatment arm; filled in by holmAcrossMetrics. */
    holmPValue: null as number | null,
    sequential: seq && { pValue, adjustedPValue: pValue, ci: seq.ci, difference: seq.difference },
    probabilityToBeatControl: orNull(() => probabilityToBeatControl(base, arm)),
  };
}

export type Comparison = ReturnType<typeof compare>;

/** A treatment arm with no users yet on the metric (or no control to compare with). */
export function noComparison(armId: string): Comparison {
  return {
    armId,
    welch: null,
    cuped: null,
    holmPValue: null,
    sequential: null,
    probabilityToBeatControl: null,
  };
}

/**
 * Holm's correction (see holmAdjust for why Holm) over two families at once: every comparison's fixed-horizon
 * p-value (CUPED's where there is one) across all metrics and treatment arms, for the page; and the sequential
 * p-values the automatic decisions act on (the primary metric and the guardrails, every treatment arm), so that
 * looking at several metrics and arms does not multiply the chance of stopping or promoting by mistake.
 */
export function holmAcrossMetrics(
  metrics: readonly { metric: string; comparisons: Comparison[] }[],
  decides: (metric: string) => boolean,
): void {
  const all = metrics.flatMap((m) => m.comparisons);
  const reported = all.flatMap((c) => {
    const p = c.cuped?.pValue ?? c.welch?.pValue;
    return p === undefined ? [] : [{ c, p }];
  });
  holmAdjust(reported.map((r) => r.p)).forEach((p, i) => {
    const entry = reported[i];
    if (entry) entry.c.holmPValue = p;
  });
  const decisive = metrics
    .filter((m) => decides(m.metric))
    .flatMap((m) => m.comparisons)
    .flatMap((c) => (c.sequential?.pValue != null ? [c.sequential] : []));
  holmAdjust(decisive.map((s) => s.pValue as number)).forEach((p, i) => {
    const s = decisive[i];
    if (s) s.adjustedPValue = p;
  });
}
