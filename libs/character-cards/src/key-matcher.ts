export interface KeyMatchOptions {
  caseSensitive: boolean;
  /** A key must not start or end inside a word (`elf` does not match `shelf`). */
  wholeWords: boolean;
  /** V3 `use_regex`: every key is a regular expression. */
  useRegex: boolean;
}

export type TextMatcher = (text: string) => boolean;

const NEVER: TextMatcher = () => false;
/** Longer patterns are refused: keys come from uploaded cards and run on every turn. */
const MAX_PATTERN_LENGTH = 1000;
const REGEX_LITERAL = /^\/(.+)\/([dimsuv]*)$/s;
const WORD_CHAR = /[\p{L}\p{N}\p{M}_]/u;
// Scripts written without spaces between words: a boundary check would stop their keys from ever matching.
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** A test for "the text contains one of `keys`"; blank keys and invalid regular expressions never match. */
export function compileKeys(keys: readonly string[], options: KeyMatchOptions): TextMatcher {
  const matchers = keys.map((key) => compileKey(key, options)).filter((matcher) => matcher !== NEVER);
  if (matchers.length === 0) return NEVER;
  return (text) => matchers.some((matches) => matches(text));
}

/**
 * One key as a matcher. `/pattern/flags` is a regular expression whatever `useRegex` says (the SillyTavern
 * convention); with `useRegex` a bare key is a pattern too; otherwise it is literal text.
 */
export function compileKey(key: string, options: KeyMatchOptions): TextMatcher {
  const literal = REGEX_LITERAL.exec(key.trim());
  if (literal) return compileRegex(literal[1] ?? '', literal[2] ?? '');
  if (options.useRegex) return compileRegex(key, options.caseSensitive ? '' : 'i');
  const text = key.trim();
  if (text === '') return NEVER;
  const chars = Array.from(text);
  const needsBoundary = (char: string | undefined) =>
    options.wholeWords && char !== undefined && WORD_CHAR.test(char) && !UNSPACED_SCRIPT.test(char);
  const before = needsBoundary(chars[0]) ? '(?<![\\p{L}\\p{N}\\p{M}_])' : '';
  const after = needsBoundary(chars.at(-1)) ? '(?![\\p{L}\\p{N}\\p{M}_])' : '';
  const pattern = new RegExp(`${before}${escapeRegex(text)}${after}`, options.caseSensitive ? 'u' : 'iu');
  return (haystack) => pattern.test(haystack);
}

function compileRegex(source: string, flags: string): TextMatcher {
  if (source === '' || source.length > MAX_PATTERN_LENGTH) return NEVER;
  try {
    const pattern = new RegExp(source, flags);
    return (haystack) => pattern.test(haystack);
  } catch {
    return NEVER; // spec v3: an invalid pattern is not a match
  }
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
