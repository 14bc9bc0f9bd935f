import { z } from 'zod';
import { ParseMemo } from './parse-memo';

const schema = z.object({ name: z.string(), tags: z.array(z.string()).default([]) });

describe('ParseMemo', () => {
  const counted = (maxTexts?: number) => {
    let parses = 0;
    const memo = new ParseMemo((value) => {
      parses++;
      return schema.parse(value);
    }, maxTexts);
    return { memo, parses: () => parses };
  };

  it('parses a value once, whether the same object or an equal one comes again', () => {
    const { memo, parses } = counted();
    const first = memo.get({ name: 'Echo' });
    expect(first).toEqual({ name: 'Echo', tags: [] });
    expect(memo.get({ name: 'Echo' })).toBe(first);
    const object = { name: 'Echo' };
    memo.get(object);
    memo.get(object);
    expect(parses()).toBe(1);
  });

  it('parses a changed value again, and still refuses an invalid one', () => {
    const { memo, parses } = counted();
    memo.get({ name: 'Echo' });
    expect(memo.get({ name: 'Echo', tags: ['kind'] })).toEqual({ name: 'Echo', tags: ['kind'] });
    expect(() => memo.get({ name: 42 })).toThrow();
    expect(() => memo.get({ name: 42 })).toThrow();
    expect(() => memo.get(null)).toThrow();
    expect(parses()).toBe(5);
  });

  it('trusts a vouched value without parsing it', () => {
    const { memo, parses } = counted();
    const built = { name: 'Built', tags: ['made', 'valid'] };
    memo.vouch(built);
    expect(memo.get(built)).toBe(built);
    expect(parses()).toBe(0);
  });

  it('with maxTexts 0, knows values by identity only', () => {
    const { memo, parses } = counted(0);
    const object = { name: 'Echo' };
    memo.get(object);
    memo.get(object);
    memo.get({ name: 'Echo' });
    expect(parses()).toBe(2);
  });

  it('keeps at most maxTexts values by text, forgetting the oldest first', () => {
    const { memo, parses } = counted(2);
    memo.get({ name: 'a' });
    memo.get({ name: 'b' });
    memo.get({ name: 'c' });
    memo.get({ name: 'c' });
    memo.get({ name: 'b' });
    expect(parses()).toBe(3);
    memo.get({ name: 'a' });
    expect(parses()).toBe(4);
  });
});
