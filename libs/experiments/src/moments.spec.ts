import { addValue, emptyMoments, mergeMoments, summarize } from './moments';
import { expectCloseTo } from './testing/close-to';

const CONTROL = [3.1, 2.7, 4.4, 3.9, 3.0, 2.2, 3.6, 4.1];

const momentsOf = (xs: number[]) => xs.reduce(addValue, emptyMoments());

describe('moments', () => {
  it('summarizes like numpy (x.mean(), x.var(ddof=1))', () => {
    // numpy: 3.375, 0.5650000000000001
    const s = summarize(momentsOf(CONTROL));
    expect(s.n).toBe(8);
    expectCloseTo(s.mean, 3.375, 1e-14);
    expectCloseTo(s.variance, 0.5650000000000001, 1e-12);
  });

  it('merges shards into the same statistics as one pass', () => {
    const merged = mergeMoments(momentsOf(CONTROL.slice(0, 3)), momentsOf(CONTROL.slice(3)));
    expect(merged.n).toBe(8);
    expectCloseTo(merged.sum, momentsOf(CONTROL).sum, 1e-15);
    expectCloseTo(merged.sumSquares, momentsOf(CONTROL).sumSquares, 1e-15);
    expect(mergeMoments(emptyMoments(), merged)).toEqual(merged);
  });

  it('reports variance 0 below two observations and never a negative variance', () => {
    expect(summarize(emptyMoments())).toEqual({ n: 0, mean: 0, variance: 0 });
    expect(summarize(momentsOf([7]))).toEqual({ n: 1, mean: 7, variance: 0 });
    expect(summarize(momentsOf([0.1, 0.1, 0.1])).variance).toBeGreaterThanOrEqual(0);
  });

  it('rejects non-finite values', () => {
    expect(() => addValue(emptyMoments(), NaN)).toThrow(RangeError);
    expect(() => addValue(emptyMoments(), Infinity)).toThrow(RangeError);
  });
});
