import fc from 'fast-check';
import { z } from 'zod';
import { findUnstorableText, TEXT_PROBLEMS, userText, withStorableText } from './text';

// eslint-disable-next-line no-control-regex -- the characters userText refuses
const C0_BUT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/** Well-formed UTF-16 (every code point, surrogate pairs included) without the control characters refused. */
const cleanText = fc.string({ unit: 'binary' }).map((s) => s.replace(C0_BUT_WHITESPACE, ''));
/** A lone surrogate between well-formed text: well-formed text never ends in a high or starts with a low one. */
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const badText = fc
  .tuple(cleanText, fc.oneof(fc.constant('\u0000'), loneSurrogate), cleanText)
  .map(([before, bad, after]) => before + bad + after);

const SEED = { seed: 12, numRuns: 300 };

describe('userText', () => {
  const schema = z.object({ profile: z.object({ name: userText() }) });

  it('accepts every well-formed string without control characters', () => {
    fc.assert(
      fc.property(cleanText, (name) => {
        expect(schema.safeParse({ profile: { name } }).success).toBe(true);
      }),
      SEED,
    );
  });

  it('refuses a NUL or a lone surrogate anywhere, naming the field', () => {
    fc.assert(
      fc.property(badText, (name) => {
        const result = schema.safeParse({ profile: { name } });
        expect(result.success).toBe(false);
        expect(result.error?.issues.map((i) => i.path.join('.'))).toEqual(['profile.name']);
      }),
      SEED,
    );
  });

  it('refuses other C0 controls but keeps tabs and newlines', () => {
    expect(userText().safeParse('a\u001bb').error?.issues[0]?.message).toBe(TEXT_PROBLEMS.control);
    expect(userText().safeParse('a\tb\r\nc').success).toBe(true);
    expect(userText().safeParse('\ud83d\ude00 paired').success).toBe(true);
    expect(userText().safeParse('\ude00\ud83d swapped').error?.issues[0]?.message).toBe(
      TEXT_PROBLEMS.loneSurrogate,
    );
  });
});

describe('findUnstorableText', () => {
  /** Any JSON-like value whose strings and keys are all clean. */
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof(
      { depthSize: 'small' },
      cleanText,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('tree')),
      fc.dictionary(cleanText, tie('tree')),
    ),
  }));

  /** Puts `leaf` at a random path built from `steps` (true: an array index, false: an object key). */
  const plant = (steps: { index: boolean; key: string }[], leaf: unknown) => {
    let value = leaf;
    const path: (string | number)[] = [];
    for (const step of [...steps].reverse()) {
      value = step.index ? [null, value] : { [step.key]: value };
      path.unshift(step.index ? 1 : step.key);
    }
    return { value, path: path.join('.') || '(root)' };
  };
  const steps = fc.array(
    fc.record({ index: fc.boolean(), key: cleanText.filter((k) => k.length > 0 && !k.includes('.')) }),
    { maxLength: 12 },
  );

  it('finds nothing in clean values', () => {
    fc.assert(
      fc.property(tree, (value) => {
        expect(findUnstorableText(value)).toEqual([]);
      }),
      SEED,
    );
  });

  it('finds a bad string at any depth in objects and arrays, with its path', () => {
    fc.assert(
      fc.property(steps, badText, (path, bad) => {
        const planted = plant(path, bad);
        expect(findUnstorableText(planted.value)).toEqual([
          { path: planted.path, message: expect.any(String) },
        ]);
      }),
      SEED,
    );
  });

  it('finds a bad key, naming it with the bad character escaped', () => {
    expect(findUnstorableText({ a: [{ 'x\u0000y': 1 }] })).toEqual([
      { path: 'a.0.x\\u0000y', message: `key ${TEXT_PROBLEMS.nul}` },
    ]);
    fc.assert(
      fc.property(steps, badText, (path, badKey) => {
        expect(findUnstorableText(plant(path, { [badKey]: 1 }).value)).toHaveLength(1);
      }),
      SEED,
    );
  });

  it('refuses nesting past 64 levels (JSON.stringify could not write it back), without overflowing the stack', () => {
    const nest = (levels: number) => {
      let value: unknown = 'leaf';
      for (let depth = 0; depth < levels; depth++) value = depth % 2 ? [value] : { k: value };
      return value;
    };
    expect(findUnstorableText(nest(64))).toEqual([]);
    expect(findUnstorableText(nest(65))).toEqual([
      { path: expect.any(String), message: TEXT_PROBLEMS.tooDeep },
    ]);
    expect(findUnstorableText(nest(200_000))).toEqual([
      { path: expect.any(String), message: TEXT_PROBLEMS.tooDeep },
    ]);
  });

  it('prefixes the given root', () => {
    expect(findUnstorableText('\u0000', ['id'])).toEqual([{ path: 'id', message: TEXT_PROBLEMS.nul }]);
  });
});

describe('withStorableText', () => {
  it('refuses bad text anywhere before the schema runs, and parses clean values with it', () => {
    const schema = withStorableText(z.object({ content: z.string(), extra: z.unknown() }));
    const refused = schema.safeParse({ content: 'fine', extra: { deep: ['\ud800'] } });
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['extra.deep.0']);
    expect(schema.parse({ content: 'fine', extra: 1 })).toEqual({ content: 'fine', extra: 1 });
  });
});
