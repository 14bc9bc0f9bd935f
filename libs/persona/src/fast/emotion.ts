import { type ObservationDraft } from '../observation';
import { type EmotionLabel } from '../taxonomy';
import {
  CONTRAST_WORDS,
  EMOTION_EMOJI,
  EMOTION_PHRASES,
  EMOTION_PROTOTYPES,
  EMOTION_WORDS,
  INTENSIFIERS,
  NEGATORS,
  UNSPACED_EMOTIONS,
} from './emotion-lexicon';
import { clamp01, isClauseBreak, type ScannedText } from './scan';

const NEGATION_REACH = 3;
const INTENSIFIED = 1.3;
const EMOJI_STRENGTH = 0.6;
const PHRASE_STRENGTH = 1;
/** One plain feeling word ("I'm anxious") is most of what a message can say about the current emotion. */
const WEIGHT_PER_STRENGTH = 0.8;
/** "not happy" reads as mildly sad; "not sad" as a little better than neutral. */
const NEGATED_POSITIVE = { label: 'sadness', share: 0.6, valence: -0.35, arousal: 0.3 } as const;
const NEGATED_NEGATIVE = { label: 'neutral', share: 0.5, valence: 0.15, arousal: 0.3 } as const;
const EXCLAMATION = /!/g;
const SHOUTED_WORD = /\b[A-Z]{4,}\b/;

/** Accumulates lexicon hits into label strengths and strength-weighted valence and arousal. */
class EmotionTally {
  readonly strengths = new Map<EmotionLabel, number>();
  total = 0;
  valence = 0;
  arousal = 0;

  add(label: EmotionLabel, strength: number, valence: number, arousal: number): void {
    this.strengths.set(label, (this.strengths.get(label) ?? 0) + strength);
    this.total += strength;
    this.valence += strength * valence;
    this.arousal += strength * arousal;
  }

  addFelt(label: EmotionLabel, strength: number): void {
    const prototype = EMOTION_PROTOTYPES[label];
    this.add(label, strength, prototype.valence, prototype.arousal);
  }

  strongest(): EmotionLabel {
    let best: EmotionLabel = 'neutral';
    let bestStrength = 0;
    for (const [label, strength] of this.strengths) {
      if (strength > bestStrength) {
        best = label;
        bestStrength = strength;
      }
    }
    return best;
  }
}

/** The current emotion (label, valence, arousal) from feeling words, emoji and expressions; none when silent. */
export function emotionObservations(scan: ScannedText, out: ObservationDraft[]): void {
  const tally = new EmotionTally();
  const { tokens } = scan;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const entry = token === undefined ? undefined : EMOTION_WORDS.get(token);
    if (!entry) continue;
    const strength = entry.strength * (isIntensified(tokens, i) ? INTENSIFIED : 1);
    if (!isNegated(tokens, i)) tally.addFelt(entry.label, strength);
    else {
      const flipped = EMOTION_PROTOTYPES[entry.label].valence > 0.3 ? NEGATED_POSITIVE : NEGATED_NEGATIVE;
      tally.add(flipped.label, strength * flipped.share, flipped.valence, flipped.arousal);
    }
  }
  for (const [pattern, label] of EMOTION_PHRASES)
    if (pattern.test(scan.lower)) tally.addFelt(label, PHRASE_STRENGTH);
  for (const emoji of scan.emojis) {
    const label = EMOTION_EMOJI.get(emoji);
    if (label) tally.addFelt(label, EMOJI_STRENGTH);
  }
  const { han, kana, hangul } = scan.scripts;
  if (han + kana + hangul > 0) {
    for (const [pattern, label] of UNSPACED_EMOTIONS) if (pattern.test(scan.text)) tally.addFelt(label, 1);
  }
  if (tally.total === 0) return;

  const exclamations = Math.min(3, scan.text.match(EXCLAMATION)?.length ?? 0);
  const arousalBoost = exclamations * 0.05 + (SHOUTED_WORD.test(scan.text) ? 0.05 : 0);
  const weight = Math.min(1, tally.total * WEIGHT_PER_STRENGTH);
  out.push({ field: 'emotion', value: tally.strongest(), weight });
  out.push({ field: 'valence', value: Math.max(-1, Math.min(1, tally.valence / tally.total)), weight });
  out.push({ field: 'arousal', value: clamp01(tally.arousal / tally.total + arousalBoost), weight });
}

/** A negator among the few words before, within the same clause and not past a "but". */
function isNegated(tokens: readonly string[], index: number): boolean {
  for (let i = index - 1; i >= 0 && i >= index - NEGATION_REACH; i--) {
    const token = tokens[i];
    if (token === undefined || isClauseBreak(token) || CONTRAST_WORDS.has(token)) return false;
    if (NEGATORS.has(token) || token.endsWith("n't")) return true;
  }
  return false;
}

function isIntensified(tokens: readonly string[], index: number): boolean {
  const before = tokens[index - 1];
  const twoBefore = tokens[index - 2];
  return (
    (before !== undefined && INTENSIFIERS.has(before)) ||
    (twoBefore !== undefined && INTENSIFIERS.has(twoBefore))
  );
}
