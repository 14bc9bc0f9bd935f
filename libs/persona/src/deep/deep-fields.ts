import { type CategoricalFieldName, type NumericFieldName } from '../fields';

/**
 * What the LLM extraction is asked for: what needs reading between the lines. Emoji and slang rates and the
 * language are left to the fast features, which count them exactly.
 */
export const DEEP_NUMERIC_FIELDS = [
  'formality',
  'verbosity',
  'openness',
  'conscientiousness',
  'extraversion',
  'agreeableness',
  'neuroticism',
  'mbtiExtraversion',
  'mbtiSensing',
  'mbtiThinking',
  'mbtiJudging',
  'valence',
  'arousal',
] as const satisfies readonly NumericFieldName[];

export const DEEP_CATEGORICAL_FIELDS = [
  'initiative',
  'emotion',
  'hiddenNeed',
  'empathyAxis',
  'empathyThreshold',
  'ageBand',
  'gender',
] as const satisfies readonly CategoricalFieldName[];

export type DeepFieldName = (typeof DEEP_NUMERIC_FIELDS)[number] | (typeof DEEP_CATEGORICAL_FIELDS)[number];
