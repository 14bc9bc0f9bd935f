import { decayFactor, evidenceConfidence, numericAgreement } from './confidence';
import { appendEvidence } from './evidence';
import { NUMERIC_FIELDS, type NumericFieldName } from './fields';
import { FIELD_RULES } from './merge-rules';
import { type NumericField } from './profile';

/** The merge's moment, formatted once for every field it updates. */
export interface MergeTime {
  ms: number;
  iso: string;
}

export interface WeightedValue<V> {
  value: V;
  /** Already scaled by source, explicitness and age. */
  weight: number;
  messageId: string;
  explicit: boolean;
}

/**
 * Adds one observation to a numeric field: the earlier evidence is decayed to `now`, then the mean and the
 * weighted variance are updated incrementally (West's algorithm), so disagreeing observations raise the variance.
 */
export function mergeNumeric(
  field: NumericFieldName,
  previous: NumericField | undefined,
  observation: WeightedValue<number>,
  now: MergeTime,
): NumericField {
  const rule = FIELD_RULES[field];
  const range = NUMERIC_FIELDS[field];
  const value = Math.min(range.max, Math.max(range.min, observation.value));
  const base = observation.explicit ? undefined : previous;
  const priorWeight = base
    ? base.weight * decayFactor(rule.halfLifeMs, now.ms - Date.parse(base.updatedAt))
    : 0;
  const priorMean = base?.value ?? value;
  const weight = priorWeight + observation.weight;
  const mean = priorMean + (observation.weight / weight) * (value - priorMean);
  const variance =
    (priorWeight * ((base?.variance ?? 0) + (priorMean - mean) ** 2) +
      observation.weight * (value - mean) ** 2) /
    weight;
  return {
    value: Math.min(range.max, Math.max(range.min, mean)),
    confidence: evidenceConfidence(weight, rule.halfConfidenceWeight) * numericAgreement(variance, range),
    evidence: observation.explicit
      ? [observation.messageId]
      : appendEvidence(base?.evidence, observation.messageId),
    updatedAt: now.iso,
    weight,
    variance,
  };
}
