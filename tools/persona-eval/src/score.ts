import { wilsonInterval } from '@echoloop/experiments';
import { confidenceAt, DEFAULT_GUIDANCE_MIN_CONFIDENCE, type UserProfile } from '@echoloop/persona';
import { TRUTH_FIELDS, type Truth, type TruthField } from './dataset';

/** A predicted trait and how sure the profile is of it; undefined value when the profile has nothing. */
export interface Prediction {
  value: Truth[TruthField] | undefined;
  confidence: number;
}

/** The profile's answer for each scored trait, read the way the prompt guidance reads it. */
export function predict(profile: UserProfile, now: Date): Record<TruthField, Prediction> {
  const at = (field: Parameters<typeof confidenceAt>[1]) =>
    profile[field] ? confidenceAt(profile, field, now) : 0;
  const bucket = <T>(value: number | undefined, below: T, above: T, threshold: number) =>
    value === undefined ? undefined : value < threshold ? below : above;
  return {
    formality: {
      value: bucket(profile.formality?.value, 'casual', 'formal', 0.5),
      confidence: at('formality'),
    },
    verbosity: { value: bucket(profile.verbosity?.value, 'short', 'long', 0.5), confidence: at('verbosity') },
    // Emoji in about one word in fifty or more: the same threshold the guidance uses for "emoji welcome".
    emoji: { value: bucket(profile.emojiRate?.value, false, true, 0.02), confidence: at('emojiRate') },
    initiative: { value: profile.initiative?.value, confidence: at('initiative') },
    hiddenNeed: { value: profile.hiddenNeed?.value, confidence: at('hiddenNeed') },
    empathyAxis: { value: profile.empathyAxis?.value, confidence: at('empathyAxis') },
    language: { value: profile.language?.value, confidence: at('language') },
  };
}

export interface FieldScore {
  field: TruthField;
  n: number;
  /** Share of conversations whose inferred value is the true one (no value counts as wrong). */
  accuracy: number;
  /** Its 95% Wilson score interval. */
  accuracyInterval: [number, number];
  /** Share whose value is true and confident enough to steer the prompt (confidence >= the guidance minimum). */
  confidentAccuracy: number;
  confidentAccuracyInterval: [number, number];
  /** Share right by guessing the field's most common true value in this set: the floor to beat. */
  majorityBaseline: number;
  /** Share with a confident value at all, right or wrong. */
  coverage: number;
}

export interface Scored {
  truth: Truth;
  predictions: Record<TruthField, Prediction>;
}

export function scoreFields(results: readonly Scored[]): FieldScore[] {
  return TRUTH_FIELDS.map((field) => {
    let correct = 0;
    let confidentCorrect = 0;
    let confident = 0;
    for (const { truth, predictions } of results) {
      const { value, confidence } = predictions[field];
      const sure = value !== undefined && confidence >= DEFAULT_GUIDANCE_MIN_CONFIDENCE;
      if (value === truth[field]) correct += 1;
      if (sure) confident += 1;
      if (sure && value === truth[field]) confidentCorrect += 1;
    }
    const n = results.length;
    const counts = new Map<unknown, number>();
    for (const { truth } of results) counts.set(truth[field], (counts.get(truth[field]) ?? 0) + 1);
    return {
      field,
      n,
      accuracy: correct / n,
      accuracyInterval: wilsonInterval(correct, n),
      confidentAccuracy: confidentCorrect / n,
      confidentAccuracyInterval: wilsonInterval(confidentCorrect, n),
      majorityBaseline: Math.max(...counts.values()) / n,
      coverage: confident / n,
    };
  });
}

/** Mean accuracy over the fields. */
export function overall(scores: readonly FieldScore[]): { accuracy: number; confidentAccuracy: number } {
  const mean = (pick: (s: FieldScore) => number) =>
    scores.reduce((sum, s) => sum + pick(s), 0) / scores.length;
  return { accuracy: mean((s) => s.accuracy), confidentAccuracy: mean((s) => s.confidentAccuracy) };
}
