import { boundedNumberValues } from './bounded-number';

describe('boundedNumberValues', () => {
  it('lists the integers in range, up to 256 of them', () => {
    expect(boundedNumberValues({ minimum: 1, maximum: 5 }, true)).toEqual([1, 2, 3, 4, 5]);
    expect(boundedNumberValues({ minimum: 0.5, maximum: 3.5 }, true)).toEqual([1, 2, 3]);
    expect(boundedNumberValues({ minimum: 0, maximum: 255 }, true)).toHaveLength(256);
    expect(boundedNumberValues({ minimum: 0, maximum: 256 }, true)).toBeUndefined();
  });

  it('picks the finest decimal grid that fits', () => {
    const unit = boundedNumberValues({ minimum: 0, maximum: 1 }, false);
    expect(unit).toHaveLength(101);
    expect(unit?.slice(0, 4)).toEqual([0, 0.01, 0.02, 0.03]);
    expect(unit?.[7]).toBe(0.07);
    expect(unit?.at(-1)).toBe(1);
    expect(boundedNumberValues({ minimum: -1, maximum: 1 }, false)).toHaveLength(201);
    expect(boundedNumberValues({ minimum: 1, maximum: 5 }, false)?.slice(0, 3)).toEqual([1, 1.1, 1.2]);
    expect(boundedNumberValues({ minimum: 0, maximum: 0.1 }, false)).toHaveLength(101);
    expect(boundedNumberValues({ minimum: 0, maximum: 200 }, false)).toHaveLength(201);
    expect(boundedNumberValues({ minimum: 0, maximum: 1000 }, false)).toBeUndefined();
  });

  it('honours exclusive bounds, in the 2020-12 and the draft 4 spelling', () => {
    expect(boundedNumberValues({ exclusiveMinimum: 0, exclusiveMaximum: 4 }, true)).toEqual([1, 2, 3]);
    expect(
      boundedNumberValues({ minimum: 0, exclusiveMinimum: true, maximum: 3, exclusiveMaximum: true }, true),
    ).toEqual([1, 2]);
    const values = boundedNumberValues({ exclusiveMinimum: 0.1, maximum: 0.13 }, false);
    expect(values).toHaveLength(30);
    expect([values?.[0], values?.at(-1)]).toEqual([0.101, 0.13]);
  });

  it('gives up without both bounds or with an empty range', () => {
    expect(boundedNumberValues({ minimum: 0 }, true)).toBeUndefined();
    expect(boundedNumberValues({ maximum: 0 }, false)).toBeUndefined();
    expect(boundedNumberValues({ minimum: 2, maximum: 1 }, true)).toBeUndefined();
    expect(boundedNumberValues({ minimum: 0.2, maximum: 0.8 }, true)).toBeUndefined();
  });
});
