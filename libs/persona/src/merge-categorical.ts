import { categoricalAgreement, decayFactor, evidenceConfidence, scoreTotal } from './confidence';
import { appendEvidence } from './evidence';
import { type FieldRule, MIN_EVIDENCE_WEIGHT } from './merge-rules';
import { type MergeTime, type WeightedValue } from './merge-numeric';
import { type CategoricalField } from './profile';

/**
 * Adds one observation to a categorical field: every category's score is decayed to `now`, the observed one
 * gains the observation's weight, and the value is the category with the highest score (the previous value wins
 * ties, so the value only moves once the contradicting evidence outweighs it). An explicit observation clears
 * the table first.
 */
export function mergeCategorical<C extends string>(
  categories: readonly C[],
  rule: FieldRule,
  previous: CategoricalField<C> | undefined,
  observation: WeightedValue<C>,
  now: MergeTime,
): CategoricalField<C> {
  const base = observation.explicit ? undefined : previous;
  const decay = base ? decayFactor(rule.halfLifeMs, now.ms - Date.parse(base.updatedAt)) : 1;
  const scores: Partial<Record<C, number>> = {};
  let value: C = base?.value ?? observation.value;
  let best = 0;
  for (const category of categories) {
    const decayed = (base?.scores[category] ?? 0) * decay;
    const score = category === observation.value ? decayed + observation.weight : decayed;
    if (score < MIN_EVIDENCE_WEIGHT) continue;
    scores[category] = score;
    if (score > best || (score === best && category === base?.value)) {
      best = score;
      value = category;
    }
  }
  return {
    value,
    confidence:
      evidenceConfidence(scoreTotal(scores), rule.halfConfidenceWeight) * categoricalAgreement(scores),
    evidence: base ? appendEvidence(base.evidence, observation.messageId) : [observation.messageId],
    updatedAt: now.iso,
    scores,
  };
}
