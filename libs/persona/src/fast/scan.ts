/** What every fast extractor reads: the text lowercased and split into words once, with its scripts counted. */
export interface ScannedText {
  readonly text: string;
  /** Lowercased, with typographic apostrophes made straight. */
  readonly lower: string;
  /**
   * Lowercased runs of letters and digits, contractions kept whole (`don't`, `c'est`), and clause punctuation as
   * one-character tokens, so that negation can stop at the end of a clause.
   */
  readonly tokens: readonly string[];
  /** Words, with unspaced scripts (Chinese, Japanese, Korean) counted as 1.5 characters a word. */
  readonly wordCount: number;
  readonly scripts: ScriptCounts;
  /** Pictographic emoji and text emoticons, in order. */
  readonly emojis: readonly string[];
}

export interface ScriptCounts {
  latin: number;
  latinUpper: number;
  cyrillic: number;
  /** Letters only Ukrainian uses among Cyrillic languages: і ї є ґ. */
  ukrainian: number;
  han: number;
  kana: number;
  hangul: number;
  arabic: number;
  devanagari: number;
}

const CLAUSE_BREAKS = ',.;:!?…。，！？';
const TOKEN = /[\p{L}\p{N}]+(?:'[\p{L}]+)*|[,.;:!?…。，！？]/gu;
const PICTOGRAPH = /\p{Extended_Pictographic}/gu;
const EMOTICON = /(?<=^|\s)(?:[:;=][-']?[()DPp/\\|3*]|<3|xD|XD)(?=$|\s|[.,!?])/g;
const CHARS_PER_UNSPACED_WORD = 1.5;

export function scanText(text: string): ScannedText {
  const folded = text.toLowerCase();
  const lower = folded.includes('\u2019') ? folded.replaceAll('\u2019', "'") : folded;
  const tokens = lower.match(TOKEN) ?? [];
  const scripts = countScripts(text);
  const unspaced = scripts.han + scripts.kana + scripts.hangul;
  let spacedTokens = 0;
  for (const token of tokens)
    if (!isClauseBreak(token) && !isUnspaced(token.charCodeAt(0))) spacedTokens += 1;
  const pictographs = text.match(PICTOGRAPH);
  const emoticons = text.match(EMOTICON);
  const emojis = pictographs && emoticons ? [...pictographs, ...emoticons] : (pictographs ?? emoticons ?? []);
  return {
    text,
    lower,
    tokens,
    wordCount: spacedTokens + unspaced / CHARS_PER_UNSPACED_WORD,
    scripts,
    emojis,
  };
}

export function isClauseBreak(token: string): boolean {
  return token.length === 1 && CLAUSE_BREAKS.includes(token);
}

function countScripts(text: string): ScriptCounts {
  const counts: ScriptCounts = {
    latin: 0,
    latinUpper: 0,
    cyrillic: 0,
    ukrainian: 0,
    han: 0,
    kana: 0,
    hangul: 0,
    arabic: 0,
    devanagari: 0,
  };
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if (code >= 0x61 && code <= 0x7a) counts.latin++;
      else if (code >= 0x41 && code <= 0x5a) {
        counts.latin++;
        counts.latinUpper++;
      }
    } else if (code >= 0xc0 && code <= 0x24f) {
      if (code !== 0xd7 && code !== 0xf7) counts.latin++;
    } else if (code >= 0x400 && code <= 0x4ff) {
      counts.cyrillic++;
      if (code === 0x456 || code === 0x457 || code === 0x454 || code === 0x491) counts.ukrainian++;
    } else if (code >= 0x600 && code <= 0x6ff) counts.arabic++;
    else if (code >= 0x900 && code <= 0x97f) counts.devanagari++;
    else if (code >= 0x3040 && code <= 0x30ff) counts.kana++;
    else if ((code >= 0x4e00 && code <= 0x9fff) || (code >= 0x3400 && code <= 0x4dbf)) counts.han++;
    else if ((code >= 0xac00 && code <= 0xd7af) || (code >= 0x3130 && code <= 0x318f)) counts.hangul++;
  }
  return counts;
}

function isUnspaced(code: number): boolean {
  return (
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0x3130 && code <= 0x318f)
  );
}

export const clamp01 = (value: number) => Math.min(1, Math.max(0, value));
