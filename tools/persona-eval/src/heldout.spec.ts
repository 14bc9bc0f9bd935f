import { HIDDEN_NEEDS } from '@echoloop/persona';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadDataset } from './dataset';
import { evaluate } from './evaluate';
import { fastInferrer } from './inferrers';
import { scriptedExtractionReply } from './scripted-extractor';

const heldout = loadDataset('heldout');
const dev = loadDataset('dev');
const ROOT = path.resolve(__dirname, '..', '..', '..');

/** Every source file the persona inference is made of: its rules, lexicons and prompts. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? sources(file) : /\.(ts|json|txt|md)$/.test(name) ? [file] : [];
  });
}

/** Runs of nine words, lowercased: a sentence copied from one text into another shares them (shorter runs meet
 * stock phrases such as "that is kind of you to say"). */
const shingles = (text: string, size = 9) => {
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  return new Set(
    words.slice(0, Math.max(0, words.length - size + 1)).map((_, i) => words.slice(i, i + size).join(' ')),
  );
};

describe('the held-out persona set', () => {
  it('is balanced: every hidden need four times, both sides of each binary trait, five languages besides English', () => {
    expect(heldout).toHaveLength(32);
    for (const need of HIDDEN_NEEDS)
      expect(heldout.filter((c) => c.truth.hiddenNeed === need)).toHaveLength(4);
    for (const field of ['formality', 'verbosity', 'initiative'] as const)
      expect(heldout.filter((c) => c.truth[field] === heldout[0]?.truth[field])).toHaveLength(16);
    expect(new Set(heldout.map((c) => c.truth.language))).toEqual(
      new Set(['en', 'es', 'fr', 'de', 'pt', 'it']),
    );
    expect(new Set(heldout.map((c) => c.id)).size).toBe(32);
  });

  it('is kept apart: no sentence of it is in the rules, the prompts or the dev set, and it has no scripted answers', () => {
    const known = new Set<string>();
    const texts = [
      ...[
        ...sources(path.join(ROOT, 'libs/persona/src')),
        ...sources(path.join(ROOT, 'libs/prompt/src')),
      ].map((file) => readFileSync(file, 'utf8')),
      ...dev.flatMap((c) => [c.persona, ...c.turns.flatMap((t) => [t.user, t.assistant])]),
    ];
    for (const text of texts) for (const shingle of shingles(text)) known.add(shingle);
    const shared = heldout.flatMap((c) =>
      c.turns.flatMap((t) => [...shingles(t.user)].filter((s) => known.has(s)).map((s) => `${c.id}: ${s}`)),
    );
    expect(shared).toEqual([]);
    expect(heldout.filter((c) => c.scriptedExtraction !== undefined)).toEqual([]);
    expect(heldout.filter((c) => dev.some((d) => d.id === c.id))).toEqual([]);
  });

  it('runs through the fast inferrer, with an interval per field; the scripted mode refuses it', async () => {
    const result = await evaluate(heldout, fastInferrer());
    for (const field of result.fields) {
      expect(field.n).toBe(32);
      expect(field.accuracyInterval[0]).toBeLessThanOrEqual(field.accuracy);
      expect(field.accuracyInterval[1]).toBeGreaterThanOrEqual(field.accuracy);
    }
    expect(() => scriptedExtractionReply(heldout)).toThrow(/test of the pipeline on the dev set/);
  });
});
