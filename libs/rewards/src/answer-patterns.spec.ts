import fc from 'fast-check';
import { emotionChangePattern, parseEmotionDelta } from './emotion-analyser';
import { parseVerdict, RATIONALE_MAX_CHARS, verdictPattern } from './verdict';

/** A judge constrained by `pattern` answers a string the whole pattern matches (vLLM matches it whole). */
const admits = (pattern: string, text: string) => new RegExp(`^(?:${pattern})$`, 'u').test(text);
const rationale = fc
  .string({ minLength: 1, maxLength: RATIONALE_MAX_CHARS })
  .filter((s) => !/[\n\r]/.test(s));

describe('answer patterns a constrained judge is held to', () => {
  const labels = ['unhelpful', 'somewhat-empathetic', 'empathetic'];

  it('every answer the verdict pattern admits is read back with its label', () => {
    fc.assert(
      fc.property(rationale, fc.constantFrom(...labels), (why, label) => {
        const answer = `${why}\nVerdict: ${label}`;
        expect(admits(verdictPattern(labels), answer)).toBe(true);
        expect(parseVerdict(answer, labels)).toMatchObject({ ok: true, value: { label } });
      }),
    );
  });

  it('admits no label outside the list, no missing rationale and no rationale over its length', () => {
    const pattern = verdictPattern(labels);
    expect(admits(pattern, 'fine\nVerdict: great')).toBe(false);
    expect(admits(pattern, '\nVerdict: empathetic')).toBe(false);
    expect(admits(pattern, `${'x'.repeat(RATIONALE_MAX_CHARS + 1)}\nVerdict: empathetic`)).toBe(false);
    // A label's characters are literal: a regex metacharacter in a configured label stays itself.
    expect(admits(verdictPattern(['a.b']), 'why\nVerdict: axb')).toBe(false);
  });

  it('writes a newline as the escape, never the character: vLLM refuses a newline in a character class', () => {
    for (const pattern of [verdictPattern(labels), emotionChangePattern()]) {
      expect(pattern).not.toMatch(/[\n\r]/);
      expect(pattern).toContain(String.raw`[^\n]`);
    }
  });

  it('every answer the emotion pattern admits is read back with its change', () => {
    fc.assert(
      fc.property(rationale, fc.integer({ min: -999, max: 999 }), (why, change) => {
        const answer = `${why}\nChange: ${change > 0 ? '+' : ''}${change}`;
        expect(admits(emotionChangePattern(), answer)).toBe(true);
        expect(parseEmotionDelta(answer, 10)).toMatchObject({ ok: true, value: { rawDelta: change } });
      }),
    );
  });
});
