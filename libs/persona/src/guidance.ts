import { confidenceAt } from './current-confidence';
import { type FieldName } from './fields';
import { type UserProfile } from './profile';
import { type EmotionLabel, type EmpathyAxis, type HiddenNeed, type Language } from './taxonomy';

export interface GuidanceOptions {
  /** Decay confidences to this moment first (recommended); without it they are used as stored. */
  now?: Date;
  /** Fields below this confidence are left out. */
  minConfidence?: number;
}

export const DEFAULT_GUIDANCE_MIN_CONFIDENCE = 0.4;
const MAX_WORDS = 60;
const HEADER = 'Adapt to this user:';

const STRATEGY: Readonly<Record<HiddenNeed, string>> = {
  'dialectical-analysis': 'Help them weigh both sides.',
  'practical-advice': 'Offer concrete, practical advice.',
  'understand-others': "Help them see the other person's view.",
  'guided-self-reflection': 'Ask questions that help them reflect.',
  'praise-for-actions': 'Praise the specific things they did.',
  'listen-while-venting': 'Listen and validate; no advice unless asked.',
  'deep-empathy': 'Show specific, deep empathy; no platitudes.',
  // Reassure, but never flatter: SAGE rewards agreeing, the product must not.
  'reassurance-not-at-fault': "Reassure them where it's fair; don't flatter.",
};

const AXIS: Readonly<Record<EmpathyAxis, string>> = {
  cognitive: 'Show you understand their situation accurately.',
  affective: 'Resonate with their feelings.',
  proactive: 'Affirm their strengths and agency.',
};

const FEELING: Readonly<Record<Exclude<EmotionLabel, 'neutral'>, string>> = {
  joy: 'happy',
  sadness: 'sad',
  anger: 'angry',
  fear: 'afraid',
  anxiety: 'anxious',
  loneliness: 'lonely',
  surprise: 'surprised',
};

const LANGUAGE_NAMES: Readonly<Record<Language, string>> = {
  en: 'English',
  es: 'Spanish',
  fr: 'French',
  de: 'German',
  pt: 'Portuguese',
  it: 'Italian',
  zh: 'Chinese',
  ja: 'Japanese',
  ko: 'Korean',
  ru: 'Russian',
  uk: 'Ukrainian',
  ar: 'Arabic',
  hi: 'Hindi',
};

/**
 * A short instruction (at most 60 words) for the reply's tone, length and strategy, from the confident fields
 * only, most important first; an empty string when nothing is confident. Gender is never used: the reply should
 * not change with it.
 */
export function personaGuidance(profile: UserProfile, options: GuidanceOptions = {}): string {
  const minConfidence = options.minConfidence ?? DEFAULT_GUIDANCE_MIN_CONFIDENCE;
  const confident = <K extends FieldName>(name: K): UserProfile[K] | undefined => {
    const field = profile[name];
    if (!field) return undefined;
    const confidence = options.now ? confidenceAt(profile, name, options.now) : field.confidence;
    return confidence >= minConfidence ? field : undefined;
  };
  const clauses: string[] = [];
  const age = confident('ageBand')?.value;
  if (age === 'under-13' || age === '13-17')
    clauses.push('They are a minor: keep everything age-appropriate.');
  const emotion = confident('emotion')?.value;
  if (emotion !== undefined && emotion !== 'neutral') {
    clauses.push(`They seem ${FEELING[emotion]} right now: acknowledge it first.`);
  }
  const need = confident('hiddenNeed')?.value;
  if (need) clauses.push(STRATEGY[need]);
  const axis = confident('empathyAxis')?.value;
  if (axis) clauses.push(AXIS[axis]);
  if (confident('empathyThreshold')?.value === 'high')
    clauses.push('Generic comfort will not land; be specific.');
  clauses.push(...lengthAndTone(confident));
  const initiative = confident('initiative')?.value;
  if (initiative === 'passive') clauses.push("Ask one gentle open question; don't wait for them to lead.");
  if (initiative === 'active') clauses.push("Follow their lead; don't over-question.");
  clauses.push(...personality(confident));
  const language = confident('language')?.value;
  if (language) clauses.push(`Reply in ${LANGUAGE_NAMES[language]}.`);
  return withinWordLimit(clauses);
}

type Confident = <K extends FieldName>(name: K) => UserProfile[K] | undefined;

function lengthAndTone(confident: Confident): string[] {
  const clauses: string[] = [];
  const verbosity = confident('verbosity')?.value;
  if (verbosity !== undefined && verbosity < 0.35) clauses.push('Keep replies short.');
  if (verbosity !== undefined && verbosity > 0.65) clauses.push('Fuller, detailed replies are welcome.');
  const tone: string[] = [];
  const formality = confident('formality')?.value;
  if (formality !== undefined && formality < 0.4) tone.push('casual');
  if (formality !== undefined && formality > 0.6) tone.push('polite and formal');
  if ((confident('emojiRate')?.value ?? 0) > 0.05) tone.push('emoji welcome');
  if ((confident('slangRate')?.value ?? 0) > 0.08) tone.push('light slang is fine');
  if (tone.length > 0) clauses.push(`Tone: ${tone.join(', ')}.`);
  return clauses;
}

function personality(confident: Confident): string[] {
  const clauses: string[] = [];
  if ((confident('neuroticism')?.value ?? 0) > 0.65) clauses.push('Be steady and reassuring.');
  if ((confident('extraversion')?.value ?? 1) < 0.35) clauses.push("Give them room; don't push.");
  if ((confident('openness')?.value ?? 0) > 0.65) clauses.push('Ideas and tangents are welcome.');
  if ((confident('conscientiousness')?.value ?? 0) > 0.65) clauses.push('Be concrete and organised.');
  return clauses;
}

function withinWordLimit(clauses: readonly string[]): string {
  if (clauses.length === 0) return '';
  let text = HEADER;
  let words = countWords(HEADER);
  for (const clause of clauses) {
    const clauseWords = countWords(clause);
    if (words + clauseWords > MAX_WORDS) break;
    text += ` ${clause}`;
    words += clauseWords;
  }
  return words === countWords(HEADER) ? '' : text;
}

function countWords(text: string): number {
  return text.split(' ').length;
}
