import { type ObservationDraft } from '../observation';
import { clamp01, type ScannedText } from './scan';
import { isSlang } from './slang';
import { wholeWords } from './words';

const CONTRACTION = /n't$|^(?:i'm|you're|we're|they're|it's|that's|what's|i've|i'll|i'd|let's|can't|won't)$/;
const CASUAL_OPENING = wholeWords(
  'hey+|hi+|yo+|sup|hiya|heya|hola|holi|salut|coucou|hallo|oi|ciao|привет|oye|ey',
  {
    atStart: true,
  },
);
const FORMAL_OPENING = wholeWords(
  'dear|good (?:morning|afternoon|evening)|greetings|estimad[oa]|buenos días|buenas tardes|bonjour|bonsoir|madame|monsieur|sehr geehrte|guten (?:tag|morgen|abend)|prezad[oa]|bom dia|boa tarde|buongiorno|buonasera|gentile|здравствуйте|добрый день',
  { atStart: true },
);
const POLITE = wholeWords(
  "please|thank you|would you|could you|kindly|i would like|i'd appreciate|sincerely|regards|usted|ustedes|por favor|vous|s'il vous plaît|bitte|danke schön|por gentileza|obrigad[oa]|per favore|la ringrazio|пожалуйста|спасибо",
  { global: true },
);
const CASUAL_PRONOUN = wholeWords('tu|tú|du|ты');
const REPEATED_MARKS = /[!?]{2,}/;
const ENDS_WITH_SENTENCE_MARK = /[.!?。！？]\s*$/;
const LOWERCASE_I = /(?:^|\s)i(?:\s|'|$)/;
const SHOUTED_WORD = /\b[A-Z]{4,}\b/;
const FIRST_LETTER = /\p{L}/u;
// Politeness registers of Japanese (です/ます), Korean (습니다/요) and Chinese (您, 请).
const POLITE_UNSPACED = /です|ます|ございます|습니다|니다|세요|십시오|您|请/;

/** Messages this long (in words) say all a single message can about style. */
const FULL_WEIGHT_WORDS = 12;
/** log(1 + words) / log(1 + this): one word ≈ 0.14, ten ≈ 0.5, fifty ≈ 0.82. */
const VERBOSE_WORDS = 120;

/** Formality, verbosity, emoji rate and slang rate of one message. */
export function speechStyleObservations(scan: ScannedText, out: ObservationDraft[]): void {
  const words = scan.wordCount;
  const slang = countSlang(scan.tokens);
  const emojis = scan.emojis.length;
  const styleWeight = Math.min(1, Math.max(0.2, words / FULL_WEIGHT_WORDS));

  out.push({ field: 'formality', value: formality(scan, slang), weight: styleWeight });
  out.push({
    field: 'verbosity',
    value: Math.min(1, Math.log1p(words) / Math.log1p(VERBOSE_WORDS)),
    weight: 1,
  });
  if (words + emojis > 0) {
    const weight = Math.min(1, Math.max(0.25, (words + emojis) / 8));
    out.push({ field: 'emojiRate', value: emojis / (words + emojis), weight });
  }
  if (words > 0) {
    out.push({
      field: 'slangRate',
      value: Math.min(1, slang / words),
      weight: Math.min(1, Math.max(0.25, words / 8)),
    });
  }
}

function countSlang(tokens: readonly string[]): number {
  let count = 0;
  for (const token of tokens) if (isSlang(token)) count++;
  return count;
}

/** 0 casual .. 1 formal: starts at neutral, each cue moves it a bounded step. */
function formality(scan: ScannedText, slang: number): number {
  const { lower, text, tokens } = scan;
  let score = 0.5;
  let contractions = 0;
  for (const token of tokens) if (CONTRACTION.test(token)) contractions++;
  score -= Math.min(0.2, contractions * 0.07);
  score -= Math.min(0.35, slang * 0.12);
  score -= Math.min(0.25, scan.emojis.length * 0.1);
  if (CASUAL_OPENING.test(lower)) score -= 0.1;
  if (FORMAL_OPENING.test(lower)) score += 0.15;
  score += Math.min(0.25, (lower.match(POLITE)?.length ?? 0) * 0.1);
  if (CASUAL_PRONOUN.test(lower)) score -= 0.05;
  if (REPEATED_MARKS.test(text)) score -= 0.1;
  if (ENDS_WITH_SENTENCE_MARK.test(text)) score += 0.07;
  else if (scan.wordCount > 3) score -= 0.05;
  if (POLITE_UNSPACED.test(text)) score += 0.25;
  return clamp01(score + capitalization(text));
}

function capitalization(text: string): number {
  let score = 0;
  const first = FIRST_LETTER.exec(text)?.[0];
  const cased = first !== undefined && first.toLowerCase() !== first.toUpperCase();
  if (cased) score += first === first.toLowerCase() ? -0.1 : 0.08;
  if (LOWERCASE_I.test(text)) score -= 0.1;
  if (SHOUTED_WORD.test(text)) score -= 0.1;
  return score;
}
