import { probabilityToBeatControl } from './bayesian';
import { expectCloseTo } from './testing/close-to';

// scipy: norm.cdf((t.mean - c.mean) / np.sqrt(c.var/c.n + t.var/t.n))
describe('probabilityToBeatControl', () => {
  it.each([
    [{ n: 12, mean: 3.2, variance: 1.5 }, { n: 40, mean: 2.7, variance: 6.25 }, 0.17288929307558015],
    [{ n: 2000, mean: 0.61, variance: 0.2379 }, { n: 1800, mean: 0.64, variance: 0.2304 }, 0.971872019239608],
  ])('%p vs %p', (control, treatment, expected) => {
    expectCloseTo(probabilityToBeatControl(control, treatment), expected, 1e-12);
  });

  it('is 0.5 with no difference and no uncertainty, and the limit otherwise', () => {
    const constant = { n: 3, mean: 1, variance: 0 };
    expect(probabilityToBeatControl(constant, constant)).toBe(0.5);
    expect(probabilityToBeatControl(constant, { ...constant, mean: 2 })).toBe(1);
    expect(probabilityToBeatControl(constant, { ...constant, mean: 0 })).toBe(0);
  });
});
