/** A word list written as one space-separated string (compact to read and to format) turned into a set. */
export function wordSet(words: string): ReadonlySet<string> {
  return new Set(words.trim().split(/\s+/));
}

const NOT_AFTER_LETTER = '(?<![\\p{L}\\p{N}])';
const NOT_BEFORE_LETTER = '(?![\\p{L}\\p{N}])';

/**
 * Any of `alternatives` (a regular-expression source) as whole words in any script: JavaScript's `\b` only knows
 * ASCII letters, so it fails around `qué`, `übrigens` or `почему`. With `atStart`, only at the text's start.
 */
export function wholeWords(
  alternatives: string,
  options: { atStart?: boolean; global?: boolean } = {},
): RegExp {
  const start = options.atStart ? '^' : NOT_AFTER_LETTER;
  return new RegExp(`${start}(?:${alternatives})${NOT_BEFORE_LETTER}`, options.global ? 'gu' : 'u');
}
