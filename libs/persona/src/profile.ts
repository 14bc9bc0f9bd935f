import { z } from 'zod';
import {
  CATEGORICAL_FIELDS,
  type CategoricalFieldName,
  type CategoryOf,
  NUMERIC_FIELDS,
  type NumericFieldName,
  type NumericRange,
} from './fields';
import { MAX_EVIDENCE_IDS } from './merge-rules';
import { MBTI_TYPE_PATTERN } from './taxonomy';

/** What every profile field carries: a value, how sure we are, the messages behind it, and when it last moved. */
export interface FieldBase<V> {
  value: V;
  confidence: number;
  /** Ids of the messages whose observations shaped this field, newest last, at most MAX_EVIDENCE_IDS. */
  evidence: string[];
  updatedAt: string;
}

/** A number averaged over its observations; `weight` and `variance` let later evidence update it. */
export interface NumericField extends FieldBase<number> {
  /** The decayed total weight of the observations, as of `updatedAt`. */
  weight: number;
  /** Their weighted variance: high when observations disagree, which lowers confidence. */
  variance: number;
}

/** A category chosen by the highest decayed score among the categories observed. */
export interface CategoricalField<C extends string> extends FieldBase<C> {
  scores: Partial<Record<C, number>>;
}

/** The 4-letter MBTI type, derived from the four axis probabilities whenever one of them changes. */
export type MbtiTypeField = FieldBase<string>;

export type NumericFields = { [K in NumericFieldName]?: NumericField };
export type CategoricalFields = { [K in CategoricalFieldName]?: CategoricalField<CategoryOf<K>> };

/** What we have inferred about a user, across conversations and sessions. A field is absent until observed. */
export type UserProfile = { schemaVersion: 1; mbtiType?: MbtiTypeField } & NumericFields & CategoricalFields;

const confidence = z.number().min(0).max(1);
const evidence = z.array(z.string().min(1)).max(MAX_EVIDENCE_IDS);
const updatedAt = z.iso.datetime({ offset: true });

function numeric(range: NumericRange) {
  return z
    .object({
      value: z.number().min(range.min).max(range.max),
      confidence,
      evidence,
      updatedAt,
      weight: z.number().nonnegative(),
      variance: z.number().nonnegative(),
    })
    .optional();
}

function categorical<const C extends readonly [string, ...string[]]>(categories: C) {
  const category = z.enum(categories);
  return z
    .object({
      value: category,
      confidence,
      evidence,
      updatedAt,
      scores: z.partialRecord(category, z.number().nonnegative()),
    })
    .optional();
}

export const userProfileSchema: z.ZodType<UserProfile> = z.object({
  schemaVersion: z.literal(1),
  formality: numeric(NUMERIC_FIELDS.formality),
  verbosity: numeric(NUMERIC_FIELDS.verbosity),
  emojiRate: numeric(NUMERIC_FIELDS.emojiRate),
  slangRate: numeric(NUMERIC_FIELDS.slangRate),
  language: categorical(CATEGORICAL_FIELDS.language),
  initiative: categorical(CATEGORICAL_FIELDS.initiative),
  openness: numeric(NUMERIC_FIELDS.openness),
  conscientiousness: numeric(NUMERIC_FIELDS.conscientiousness),
  extraversion: numeric(NUMERIC_FIELDS.extraversion),
  agreeableness: numeric(NUMERIC_FIELDS.agreeableness),
  neuroticism: numeric(NUMERIC_FIELDS.neuroticism),
  mbtiExtraversion: numeric(NUMERIC_FIELDS.mbtiExtraversion),
  mbtiSensing: numeric(NUMERIC_FIELDS.mbtiSensing),
  mbtiThinking: numeric(NUMERIC_FIELDS.mbtiThinking),
  mbtiJudging: numeric(NUMERIC_FIELDS.mbtiJudging),
  mbtiType: z
    .object({ value: z.string().regex(MBTI_TYPE_PATTERN), confidence, evidence, updatedAt })
    .optional(),
  ageBand: categorical(CATEGORICAL_FIELDS.ageBand),
  gender: categorical(CATEGORICAL_FIELDS.gender),
  emotion: categorical(CATEGORICAL_FIELDS.emotion),
  valence: numeric(NUMERIC_FIELDS.valence),
  arousal: numeric(NUMERIC_FIELDS.arousal),
  hiddenNeed: categorical(CATEGORICAL_FIELDS.hiddenNeed),
  empathyAxis: categorical(CATEGORICAL_FIELDS.empathyAxis),
  empathyThreshold: categorical(CATEGORICAL_FIELDS.empathyThreshold),
});

/** A profile with nothing inferred yet. */
export function emptyProfile(): UserProfile {
  return { schemaVersion: 1 };
}
