import nlp from 'compromise';

/**
 * PII redaction for text that leaves the database, regex-first (no model, no network), every match replaced by a
 * typed placeholder so the sentence keeps its shape:
 *   [EMAIL]  addresses with a dotted domain;
 *   [CARD]   13-19 digits, spaces or dashes between groups allowed, only when the Luhn checksum holds;
 *   [IBAN]   a country code, 2 check digits and up to 30 characters, only when the ISO 7064 mod-97 check holds;
 *   [ID]     US social security numbers (AAA-GG-SSSS, not 000/666/9xx areas);
 *   [PHONE]  international (+…) or grouped national numbers of 7-15 digits; bare digit runs (order numbers,
 *            years, amounts) are not phones unless written as a phone number is;
 *   [ADDRESS] a house number, a name and a street word (221B Baker Street, Hauptstraße 5), and UK postcodes;
 *   [NAME]   person names as compromise's rule-based tagger finds them (first and last names, not honorifics or
 *            relations: "my sister [NAME]"); names that are common words ("Hope", "Will") are kept.
 * Misses and false alarms are measured on data/redaction/cases.jsonl (npm run eval:redaction).
 */
export type PiiKind = 'EMAIL' | 'CARD' | 'IBAN' | 'ID' | 'PHONE' | 'ADDRESS' | 'NAME';

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const CARD = /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g;
const SSN = /\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b/g;
// +CC then groups; or (AAA) BBB-CCCC; or groups separated by spaces, dots or dashes (at least two separators).
const PHONE =
  /(?:\+\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{1,4}(?:[\s.-]?\d{2,4}){1,4}|\(\d{2,4}\)[\s.-]?\d{3,4}[\s.-]?\d{3,4}|\b\d{2,4}[\s.-]\d{2,4}[\s.-]\d{2,4}(?:[\s.-]\d{2,4})?\b)/g;

/** Not phones: dates (2026-11-24, 24.11.2026) and amounts grouped by thousands (1 000 000, 12.500.000). */
const DATE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{4})$/;
const SSN_SHAPE = /^\d{3}-\d{2}-\d{4}$/;
const GROUPED_AMOUNT = /^\d{1,3}(?:([ .,])\d{3})(?:\1\d{3})*$/;

/** Private-use characters around set-aside text (user text never holds them in practice; see the guard). */
const ASIDE_OPEN = '\uE000';
const ASIDE_CLOSE = '\uE001';
const ASIDE = /\uE000(\d+)\uE001/g;

const STREET_WORDS =
  'Street|St\\.?|Avenue|Ave\\.?|Road|Rd\\.?|Lane|Ln\\.?|Boulevard|Blvd\\.?|Drive|Way|Court|Ct\\.?|Place|Square|Terrace|Close|Crescent';
const STREET = new RegExp(
  `\\b\\d{1,5}[A-Za-z]?\\s+(?:[A-Z][\\p{L}'-]+\\s+){1,3}(?:${STREET_WORDS})\\b(?:\\s+(?:NW|NE|SW|SE))?` +
    `|\\b[A-ZÄÖÜ][\\p{L}-]*(?:straße|strasse|weg|platz|allee|gasse)\\s+\\d{1,4}[a-z]?\\b`,
  'gu',
);
const UK_POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}\b/g;

/**
 * The tagger costs about half a millisecond a text, and an export sees each message many times (it is in the
 * context of every later turn of its conversation): the last 50k answers are remembered.
 */
const NAMES_CACHE = 50_000;
const namesSeen = new Map<string, string[]>();

/** The names in a text: the first- and last-name terms of each person compromise finds. */
function personNames(text: string): string[] {
  if (!/\p{L}/u.test(text)) return [];
  const cached = namesSeen.get(text);
  if (cached) return cached;
  const names = tagNames(text);
  if (namesSeen.size >= NAMES_CACHE) namesSeen.delete(namesSeen.keys().next().value as string);
  namesSeen.set(text, names);
  return names;
}

function tagNames(text: string): string[] {
  const people = nlp(text)
    .people()
    .json({ terms: { tags: true } }) as {
    terms: { text: string; tags: string[] }[];
  }[];
  return people.flatMap((person) =>
    person.terms
      .filter((term) => term.tags.includes('FirstName') || term.tags.includes('LastName'))
      .map((term) => term.text),
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

function ibanValid(candidate: string): boolean {
  const iban = candidate.replace(/ /g, '');
  if (iban.length < 15 || iban.length > 34) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

function digitCount(text: string): number {
  return text.replace(/\D/g, '').length;
}

/** The text with its PII replaced, and what was found (kinds only, never the values). */
export function redact(text: string): { text: string; found: PiiKind[] } {
  const found: PiiKind[] = [];
  const replace = (pattern: RegExp, kind: PiiKind, accept: (match: string) => boolean = () => true) => {
    text = text.replace(pattern, (match) => {
      if (!accept(match)) return match;
      found.push(kind);
      return `[${kind}]`;
    });
  };
  // Account-number-shaped text that fails the IBAN check is no phone or card either: set aside, put back at the end.
  const aside: string[] = [];
  replace(EMAIL, 'EMAIL');
  text = text.replace(IBAN, (match) => {
    if (ibanValid(match)) {
      found.push('IBAN');
      return '[IBAN]';
    }
    if (text.includes(ASIDE_OPEN)) return match; // cannot happen with user text; never mis-restore
    aside.push(match);
    return `${ASIDE_OPEN}${aside.length - 1}${ASIDE_CLOSE}`;
  });
  replace(CARD, 'CARD', (match) => luhn(match.replace(/\D/g, '')));
  replace(SSN, 'ID');
  replace(PHONE, 'PHONE', (match) => {
    const digits = digitCount(match);
    if (digits < 7 || digits > 15) return false;
    if (match.startsWith('+') || match.startsWith('(')) return true;
    return !DATE.test(match) && !GROUPED_AMOUNT.test(match) && !SSN_SHAPE.test(match);
  });
  text = text.replace(ASIDE, (_match, index: string) => aside[Number(index)] ?? '');
  replace(STREET, 'ADDRESS');
  replace(UK_POSTCODE, 'ADDRESS');
  for (const name of new Set(personNames(text))) {
    if (name.length < 2) continue;
    replace(new RegExp(`(?<![\\p{L}\\[])${escapeRegExp(name)}(?![\\p{L}\\]])`, 'gu'), 'NAME');
  }
  // "Sarah Connor" is one name: one placeholder.
  text = text.replace(/\[NAME\](?:\s+\[NAME\])+/g, '[NAME]');
  return { text, found };
}

export const redactText = (text: string): string => redact(text).text;
