/**
 * Measures of degenerate text, each per answer and "higher is worse", for the gate's guards. They catch what a
 * reward model can be blind to and RL is known to produce (RLUF, CharacterFlywheel): a sentence said over and
 * over, looping phrases, answers that say nothing.
 */

const words = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/** Sentences by their words alone, so "Sure." and "sure" are the same sentence said twice. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?…])\s+|\n+/u)
    .map((sentence) => words(sentence).join(' '))
    .filter((sentence) => sentence.length > 0);
}

const repeatedShare = (items: readonly string[]): number =>
  items.length === 0 ? 0 : 1 - new Set(items).size / items.length;

/** The share of an answer's sentences that repeat an earlier one ("I'm not sure. I'm not sure." is 0.5). */
export function repeatedSentenceShare(text: string): number {
  return repeatedShare(sentences(text));
}

/** The share of word n-grams that occurred before in the same answer: loops that do not end a sentence. */
export function repeatedNgramShare(text: string, n = 4): number {
  const tokens = words(text);
  const grams = tokens
    .slice(0, Math.max(0, tokens.length - n + 1))
    .map((_, i) => tokens.slice(i, i + n).join(' '));
  return repeatedShare(grams);
}

// What an assistant says when it declines instead of answering; a companion should almost never sound like this.
const REFUSAL =
  /\b(?:as an ai\b|i(?:'m| am) (?:just )?an ai\b|i (?:can(?:'|no)?t|cannot|am unable to|won't) (?:help|assist|answer|respond|provide|do that)|i(?:'m| am) (?:sorry|afraid),? (?:but )?i (?:can(?:'|no)?t|cannot|am unable))/iu;

/** 1 for an answer with no words or one that reads as a refusal, else 0. */
export function emptyOrRefusal(text: string): number {
  return words(text).length === 0 || REFUSAL.test(text) ? 1 : 0;
}

/** Words in an answer, for the length ratio against the default's answer to the same prompt. */
export const wordCount = (text: string): number => words(text).length;
