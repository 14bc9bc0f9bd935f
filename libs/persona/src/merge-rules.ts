import { type FieldName } from './fields';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

export interface FieldRule {
  /** Time after which a piece of evidence counts half as much. */
  readonly halfLifeMs: number;
  /** Decayed evidence weight at which confidence reaches one half (before disagreement lowers it). */
  readonly halfConfidenceWeight: number;
}

const SPEECH_STYLE: FieldRule = { halfLifeMs: 21 * DAY, halfConfidenceWeight: 4 };
const CURRENT_EMOTION: FieldRule = { halfLifeMs: 20 * MINUTE, halfConfidenceWeight: 1 };
const PERSONALITY: FieldRule = { halfLifeMs: 365 * DAY, halfConfidenceWeight: 3 };
const EMPATHY_PROFILE: FieldRule = { halfLifeMs: 60 * DAY, halfConfidenceWeight: 3 };

/** Per-field decay and evidence needs: emotion fades in minutes, speech style in weeks, personality over a year. */
export const FIELD_RULES: Readonly<Record<FieldName, FieldRule>> = {
  formality: SPEECH_STYLE,
  verbosity: SPEECH_STYLE,
  emojiRate: SPEECH_STYLE,
  slangRate: SPEECH_STYLE,
  language: { halfLifeMs: 30 * DAY, halfConfidenceWeight: 2 },
  initiative: { halfLifeMs: 14 * DAY, halfConfidenceWeight: 4 },
  emotion: CURRENT_EMOTION,
  valence: CURRENT_EMOTION,
  arousal: CURRENT_EMOTION,
  // The need belongs to what the user is going through now: days, not months.
  hiddenNeed: { halfLifeMs: 3 * DAY, halfConfidenceWeight: 2 },
  empathyAxis: EMPATHY_PROFILE,
  empathyThreshold: EMPATHY_PROFILE,
  openness: PERSONALITY,
  conscientiousness: PERSONALITY,
  extraversion: PERSONALITY,
  agreeableness: PERSONALITY,
  neuroticism: PERSONALITY,
  mbtiExtraversion: PERSONALITY,
  mbtiSensing: PERSONALITY,
  mbtiThinking: PERSONALITY,
  mbtiJudging: PERSONALITY,
  // People age: a stated age band loses half its weight in two years.
  ageBand: { halfLifeMs: 730 * DAY, halfConfidenceWeight: 1 },
  gender: { halfLifeMs: Number.POSITIVE_INFINITY, halfConfidenceWeight: 1 },
};

/** An LLM extraction reads the whole conversation, a fast feature one message: it counts this many times more. */
export const DEEP_WEIGHT_MULTIPLIER = 3;
/** An explicit statement ("I'm 34") replaces what was there with this much weight (confidence 10/11 ≈ 0.91). */
export const EXPLICIT_WEIGHT_MULTIPLIER = 10;
/** Message ids kept per field, newest last. */
export const MAX_EVIDENCE_IDS = 10;
/** Evidence lighter than this is dropped: decayed category scores (tables stay small), observations too old to count. */
export const MIN_EVIDENCE_WEIGHT = 1e-3;
