import {
  categoricalAgreement,
  decayFactor,
  evidenceConfidence,
  numericAgreement,
  scoreTotal,
} from './confidence';
import {
  type CategoricalFieldName,
  type FieldName,
  isNumericField,
  NUMERIC_FIELDS,
  type NumericFieldName,
} from './fields';
import { FIELD_RULES } from './merge-rules';
import { deriveMbtiType } from './mbti-type';
import { type CategoricalField, type NumericField, type UserProfile } from './profile';

/** A field's confidence at `now`: its stored state with the evidence decayed for the time since `updatedAt`. */
export function confidenceAt(profile: UserProfile, name: FieldName | 'mbtiType', now: Date): number {
  if (name === 'mbtiType') return mbtiTypeConfidenceAt(profile, now);
  if (isNumericField(name)) {
    const field = profile[name];
    return field ? numericConfidenceAt(name, field, now) : 0;
  }
  const field = profile[name];
  return field ? categoricalConfidenceAt(name, field, now) : 0;
}

export function numericConfidenceAt(name: NumericFieldName, field: NumericField, now: Date): number {
  const rule = FIELD_RULES[name];
  const weight = field.weight * decayFactor(rule.halfLifeMs, now.getTime() - Date.parse(field.updatedAt));
  return (
    evidenceConfidence(weight, rule.halfConfidenceWeight) *
    numericAgreement(field.variance, NUMERIC_FIELDS[name])
  );
}

function categoricalConfidenceAt(
  name: CategoricalFieldName,
  field: CategoricalField<string>,
  now: Date,
): number {
  const rule = FIELD_RULES[name];
  const weight =
    scoreTotal(field.scores) * decayFactor(rule.halfLifeMs, now.getTime() - Date.parse(field.updatedAt));
  return evidenceConfidence(weight, rule.halfConfidenceWeight) * categoricalAgreement(field.scores);
}

function mbtiTypeConfidenceAt(profile: UserProfile, now: Date): number {
  const derived = deriveMbtiType(
    profile,
    (axis, field) => numericConfidenceAt(axis, field, now),
    now.toISOString(),
  );
  return derived?.confidence ?? 0;
}
