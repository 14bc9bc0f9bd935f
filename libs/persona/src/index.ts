export * from './deep/index';
export { confidenceAt } from './current-confidence';
export { extractFastFeatures, type FastFeatureContext, type UserMessage } from './fast-features';
export {
  CATEGORICAL_FIELDS,
  type CategoricalFieldName,
  type CategoryOf,
  type FieldName,
  MBTI_AXES,
  NUMERIC_FIELDS,
  type NumericFieldName,
  STATED_ONLY_FIELDS,
} from './fields';
export { DEFAULT_GUIDANCE_MIN_CONFIDENCE, type GuidanceOptions, personaGuidance } from './guidance';
export { mergeObservations } from './merge';
export {
  DEEP_WEIGHT_MULTIPLIER,
  EXPLICIT_WEIGHT_MULTIPLIER,
  FIELD_RULES,
  type FieldRule,
  MAX_EVIDENCE_IDS,
} from './merge-rules';
export {
  type CategoricalObservation,
  type NumericObservation,
  type Observation,
  type ObservationSource,
} from './observation';
export {
  type CategoricalField,
  emptyProfile,
  type FieldBase,
  type MbtiTypeField,
  type NumericField,
  type UserProfile,
  userProfileSchema,
} from './profile';
export { type ProfileSnapshot, profileSnapshot, profileSnapshotSchema } from './snapshot';
export * from './taxonomy';
