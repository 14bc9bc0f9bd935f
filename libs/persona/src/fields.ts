import {
  AGE_BANDS,
  EMOTION_LABELS,
  EMPATHY_AXES,
  EMPATHY_THRESHOLDS,
  GENDERS,
  HIDDEN_NEEDS,
  INITIATIVES,
  LANGUAGES,
} from './taxonomy';

export interface NumericRange {
  readonly min: number;
  readonly max: number;
}

const UNIT: NumericRange = { min: 0, max: 1 };

/**
 * Fields whose value is a number, with its range. Speech style rates are shares of the user's words; Big Five
 * traits are 0..1 scores; MBTI axes are the probability of the first letter of each pair (E, S, T, J).
 */
export const NUMERIC_FIELDS = {
  formality: UNIT,
  verbosity: UNIT,
  emojiRate: UNIT,
  slangRate: UNIT,
  valence: { min: -1, max: 1 },
  arousal: UNIT,
  openness: UNIT,
  conscientiousness: UNIT,
  extraversion: UNIT,
  agreeableness: UNIT,
  neuroticism: UNIT,
  mbtiExtraversion: UNIT,
  mbtiSensing: UNIT,
  mbtiThinking: UNIT,
  mbtiJudging: UNIT,
} as const satisfies Record<string, NumericRange>;
export type NumericFieldName = keyof typeof NUMERIC_FIELDS;

/** Fields whose value is one category of a fixed set. */
export const CATEGORICAL_FIELDS = {
  language: LANGUAGES,
  initiative: INITIATIVES,
  emotion: EMOTION_LABELS,
  hiddenNeed: HIDDEN_NEEDS,
  empathyAxis: EMPATHY_AXES,
  empathyThreshold: EMPATHY_THRESHOLDS,
  ageBand: AGE_BANDS,
  gender: GENDERS,
} as const;
export type CategoricalFieldName = keyof typeof CATEGORICAL_FIELDS;
type CategoryMap = { [K in CategoricalFieldName]: (typeof CATEGORICAL_FIELDS)[K][number] };
export type CategoryOf<K extends CategoricalFieldName> = CategoryMap[K];
/** The same lists, typed so that generic code over a field name `K` sees `CategoryOf<K>` elements. */
export const CATEGORY_LISTS: { readonly [K in CategoricalFieldName]: readonly CategoryOf<K>[] } =
  CATEGORICAL_FIELDS;

export type FieldName = NumericFieldName | CategoricalFieldName;

/** Never inferred: only a user's own explicit statement sets these. */
export const STATED_ONLY_FIELDS: ReadonlySet<FieldName> = new Set<FieldName>(['ageBand', 'gender']);

export const MBTI_AXES = ['mbtiExtraversion', 'mbtiSensing', 'mbtiThinking', 'mbtiJudging'] as const;
export type MbtiAxis = (typeof MBTI_AXES)[number];
/** The letter for a probability above and below one half, per axis, in type order. */
export const MBTI_LETTERS: Readonly<Record<MbtiAxis, readonly [string, string]>> = {
  mbtiExtraversion: ['E', 'I'],
  mbtiSensing: ['S', 'N'],
  mbtiThinking: ['T', 'F'],
  mbtiJudging: ['J', 'P'],
};

export function isNumericField(name: string): name is NumericFieldName {
  return Object.hasOwn(NUMERIC_FIELDS, name);
}

export function isCategoricalField(name: string): name is CategoricalFieldName {
  return Object.hasOwn(CATEGORICAL_FIELDS, name);
}

const CATEGORY_SETS = new Map<string, ReadonlySet<string>>(
  Object.entries(CATEGORICAL_FIELDS).map(([name, values]) => [name, new Set<string>(values)]),
);

/** Whether `value` is one of the field's categories (observations from a model are checked at run time). */
export function isCategoryOf<K extends CategoricalFieldName>(
  field: K,
  value: string,
): value is CategoryOf<K> {
  return CATEGORY_SETS.get(field)?.has(value) ?? false;
}
