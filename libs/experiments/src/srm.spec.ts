import { sampleRatioMismatch } from './srm';
import { expectCloseTo } from './testing/close-to';

// scipy: stats.chisquare(obs, f_exp=obs.sum() * w / w.sum()) -> (statistic, pvalue)
describe('sampleRatioMismatch', () => {
  it.each([
    [[5020, 4980], [50, 50], 0.16, 0.6891565167793516, false],
    [[5000, 5400], [50, 50], 15.384615384615385, 8.769942375590228e-5, true],
    [[2050, 2980, 4970], [20, 30, 50], 1.5633333333333332, 0.4576426376078363, false],
    [[1000, 1100, 900], [1, 1, 1], 20.0, 4.539992976248486e-5, true],
  ])('%p at weights %p', (observed, weights, chiSquare, pValue, mismatch) => {
    const result = sampleRatioMismatch(observed, weights);
    expectCloseTo(result.chiSquare, chiSquare, 1e-12);
    expectCloseTo(result.pValue, pValue, 1e-10);
    expect(result.degreesOfFreedom).toBe(observed.length - 1);
    expect(result.mismatch).toBe(mismatch);
  });

  it('leaves zero-weight arms out', () => {
    const withOff = sampleRatioMismatch([5000, 7, 5400], [50, 0, 50]);
    const without = sampleRatioMismatch([5000, 5400], [50, 50]);
    expect(withOff).toEqual(without);
  });

  it('honours the threshold', () => {
    expect(sampleRatioMismatch([5000, 5400], [50, 50], 1e-5).mismatch).toBe(false);
  });

  it('has nothing to test with one weighted arm or no users', () => {
    expect(sampleRatioMismatch([10, 3], [1, 0])).toEqual({
      chiSquare: 0,
      degreesOfFreedom: 0,
      pValue: 1,
      mismatch: false,
    });
    expect(sampleRatioMismatch([0, 0], [1, 1]).pValue).toBe(1);
  });

  it('rejects malformed input', () => {
    expect(() => sampleRatioMismatch([1, 2], [1])).toThrow(RangeError);
    expect(() => sampleRatioMismatch([1, -2], [1, 1])).toThrow(RangeError);
    expect(() => sampleRatioMismatch([1, 2], [1, -1])).toThrow(RangeError);
  });
});
