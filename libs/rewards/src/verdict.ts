import { stripThink } from '@echoloop/vocabulary';
import { type Parsed } from './parsed';

const VERDICT_LINE = /^\s*\**\s*(verdict|label)\s*\**\s*[:：]\s*\**\s*([\w-]+)/i;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The most a constrained judge may write before its verdict line (about 100 tokens). */
export const RATIONALE_MAX_CHARS = 400;

/**
 * The answer parseVerdict reads, as a regular expression for a judge's structured output: one line of rationale,
 * then `Verdict: <one of labels>`. Newlines are written as the escape `\n`, never the character itself: vLLM's
 * grammar compiler (xgrammar) refuses a literal newline in a character class, and every request then fails.
 */
export function verdictPattern(labels: readonly string[]): string {
  return `[^\\n]{1,${RATIONALE_MAX_CHARS}}\\nVerdict: (${labels.map(escapeRegExp).join('|')})`;
}

/**
 * Reads the last `Verdict: <label>` (or `Label:`) line of a GenRM answer. The label is matched case-insensitively
 * and returned in the spelling of `labels`; the reasoning is the text before that line.
 */
export function parseVerdict(
  text: string,
  labels: readonly string[],
): Parsed<{ reasoning: string; label: string }> {
  const lines = stripThink(text).split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = VERDICT_LINE.exec(lines[i] ?? '');
    if (!match) continue;
    const said = match[2] ?? '';
    const label = labels.find((candidate) => candidate.toLowerCase() === said.toLowerCase());
    if (label === undefined) {
      return { ok: false, problem: 'unknown_label', detail: `"${said}" is not one of ${labels.join(', ')}` };
    }
    return { ok: true, value: { reasoning: lines.slice(0, i).join('\n').trim(), label } };
  }
  return { ok: false, problem: 'no_label', detail: 'no "Verdict: <label>" line' };
}
