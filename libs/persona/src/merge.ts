/**
 * Merging observations into a profile. The rules:
 *
 * - Weight. An observation's weight (0..1, set by its extractor) is multiplied by DEEP_WEIGHT_MULTIPLIER when it
 *   comes from the LLM extraction, by EXPLICIT_WEIGHT_MULTIPLIER when the user said it outright, and by the decay
 *   of its message's age, so an extraction over old messages counts less.
 * - Decay. Evidence loses half its weight every FIELD_RULES[field].halfLifeMs: minutes for the current emotion,
 *   weeks for speech style, a year for Big Five and MBTI. A field stores its state as of `updatedAt`; merging
 *   decays it to `now` first, and `confidenceAt` decays it when read.
 * - Confidence = evidence × agreement. Evidence: W / (W + halfConfidenceWeight) for the decayed total weight W,
 *   so it grows with consistent evidence and never reaches 1. Agreement: for numbers, 1 minus the weighted
 *   standard deviation over half the range; for categories, the leader's lead over the runner-up as a share of
 *   all the scores. A contradiction therefore lowers confidence at once.
 * - Values. Numbers are the weighted mean of the decayed evidence, so a contradiction moves them part of the way.
 *   Categories keep a decayed score per category; the value is the highest score, and the previous value wins
 *   ties, so it flips only when the contradicting evidence outweighs the old.
 * - Explicit statements replace the field (scores cleared, evidence restarted). Age band and gender accept
 *   nothing else: inferred observations of them are dropped.
 * - Evidence keeps the newest MAX_EVIDENCE_IDS message ids per field. The MBTI type is derived again whenever an
 *   axis moves. Observations with a non-finite value, an unknown category or no weight are ignored.
 */
import { decayFactor } from './confidence';
import { numericConfidenceAt } from './current-confidence';
import {
  CATEGORY_LISTS,
  type CategoricalFieldName,
  type CategoryOf,
  isCategoryOf,
  MBTI_AXES,
  type FieldName,
  STATED_ONLY_FIELDS,
} from './fields';
import { deriveMbtiType } from './mbti-type';
import { mergeCategorical } from './merge-categorical';
import { type MergeTime, mergeNumeric, type WeightedValue } from './merge-numeric';
import {
  DEEP_WEIGHT_MULTIPLIER,
  EXPLICIT_WEIGHT_MULTIPLIER,
  FIELD_RULES,
  MIN_EVIDENCE_WEIGHT,
} from './merge-rules';
import { isNumericObservation, type Observation } from './observation';
import { type CategoricalField, type UserProfile } from './profile';

const MBTI_AXIS_NAMES: ReadonlySet<FieldName> = new Set<FieldName>(MBTI_AXES);

/** The profile with `observations` folded in as of `now`; the input profile is left unchanged. */
export function mergeObservations(
  profile: UserProfile,
  observations: readonly Observation[],
  now: Date,
): UserProfile {
  const time: MergeTime = { ms: now.getTime(), iso: now.toISOString() };
  const next: UserProfile = { ...profile };
  let mbtiAxisMoved = false;
  for (const observation of observations) {
    const explicit = observation.explicit === true;
    if (STATED_ONLY_FIELDS.has(observation.field) && !explicit) continue;
    const weight = effectiveWeight(observation, time.ms);
    if (!(weight >= MIN_EVIDENCE_WEIGHT)) continue;
    const { messageId } = observation;
    if (isNumericObservation(observation)) {
      if (!Number.isFinite(observation.value)) continue;
      const { field, value } = observation;
      next[field] = mergeNumeric(field, next[field], { value, weight, messageId, explicit }, time);
      mbtiAxisMoved ||= MBTI_AXIS_NAMES.has(field);
    } else {
      mergeCategoryInto(
        next,
        observation.field,
        { value: observation.value, weight, messageId, explicit },
        time,
      );
    }
  }
  if (mbtiAxisMoved) {
    const derived = deriveMbtiType(next, (axis, field) => numericConfidenceAt(axis, field, now), time.iso);
    if (derived) next.mbtiType = derived;
  }
  return next;
}

function effectiveWeight(observation: Observation, nowMs: number): number {
  const weight = Math.min(1, observation.weight);
  const source = observation.source === 'deep' ? DEEP_WEIGHT_MULTIPLIER : 1;
  const stated = observation.explicit === true ? EXPLICIT_WEIGHT_MULTIPLIER : 1;
  const age = decayFactor(FIELD_RULES[observation.field].halfLifeMs, nowMs - observation.observedAt);
  return weight * source * stated * age;
}

// Typed over the one field K, so that the field's category type follows it through the merge.
function mergeCategoryInto<K extends CategoricalFieldName>(
  fields: { [P in K]?: CategoricalField<CategoryOf<P>> },
  field: K,
  observation: WeightedValue<CategoryOf<K>>,
  time: MergeTime,
): void {
  if (!isCategoryOf(field, observation.value)) return;
  fields[field] = mergeCategorical(
    CATEGORY_LISTS[field],
    FIELD_RULES[field],
    fields[field],
    observation,
    time,
  );
}
