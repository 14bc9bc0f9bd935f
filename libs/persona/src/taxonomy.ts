/**
 * The category sets of the user profile (shared/docs/affective-rl.md §1.1, §2.1, §3).
 */

/** Languages the fast detector tells apart: the ten the product targets first, plus three told by script alone. */
export const LANGUAGES = [
  'en',
  'es',
  'fr',
  'de',
  'pt',
  'it',
  'zh',
  'ja',
  'ko',
  'ru',
  'uk',
  'ar',
  'hi',
] as const;
export type Language = (typeof LANGUAGES)[number];

/** SAGE's "speaking manner": whether the user leads the conversation or waits to be drawn out. */
export const INITIATIVES = ['active', 'passive'] as const;
export type Initiative = (typeof INITIATIVES)[number];

export const EMOTION_LABELS = [
  'neutral',
  'joy',
  'sadness',
  'anger',
  'fear',
  'anxiety',
  'loneliness',
  'surprise',
] as const;
export type EmotionLabel = (typeof EMOTION_LABELS)[number];

/**
 * SAGE's eight hidden needs (`task` in `build_profile.py`). Rational: analyse the problem dialectically, get
 * practical advice, understand why others acted, be guided to self-reflect. Emotional: be praised for specific
 * actions, be listened to while venting, deep empathy instead of platitudes, be told "you did nothing wrong".
 */
export const HIDDEN_NEEDS = [
  'dialectical-analysis',
  'practical-advice',
  'understand-others',
  'guided-self-reflection',
  'praise-for-actions',
  'listen-while-venting',
  'deep-empathy',
  'reassurance-not-at-fault',
] as const;
export type HiddenNeed = (typeof HIDDEN_NEEDS)[number];

export const HIDDEN_NEED_FAMILY: Readonly<Record<HiddenNeed, 'rational' | 'emotional'>> = {
  'dialectical-analysis': 'rational',
  'practical-advice': 'rational',
  'understand-others': 'rational',
  'guided-self-reflection': 'rational',
  'praise-for-actions': 'emotional',
  'listen-while-venting': 'emotional',
  'deep-empathy': 'emotional',
  'reassurance-not-at-fault': 'emotional',
};

/**
 * EPM's C/A/P axes: cognitive (being understood), affective (being resonated with), proactive (motivational:
 * being affirmed and empowered). The profile keeps the axis with the highest priority for this user.
 */
export const EMPATHY_AXES = ['cognitive', 'affective', 'proactive'] as const;
export type EmpathyAxis = (typeof EMPATHY_AXES)[number];

/** EMPA's empathy threshold 【低/中/高】: how hard the user is to reach (high = generic comfort does not land). */
export const EMPATHY_THRESHOLDS = ['low', 'mid', 'high'] as const;
export type EmpathyThreshold = (typeof EMPATHY_THRESHOLDS)[number];

/** Decades match how people state their age ("in my thirties"); minors get their own bands. */
export const AGE_BANDS = [
  'under-13',
  '13-17',
  '18-29',
  '30-39',
  '40-49',
  '50-59',
  '60-69',
  '70-plus',
] as const;
export type AgeBand = (typeof AGE_BANDS)[number];

export const GENDERS = ['female', 'male', 'non-binary'] as const;
export type Gender = (typeof GENDERS)[number];

export const MBTI_TYPE_PATTERN = /^[EI][SN][TF][JP]$/;
