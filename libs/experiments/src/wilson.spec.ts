import { expectCloseTo } from './testing/close-to';
import { wilsonInterval } from './wilson';

// Reference values, statsmodels 0.15.0:
//   statsmodels.stats.proportion.proportion_confint(successes, n, alpha=0.05, method='wilson')
const CASES: [number, number, [number, number]][] = [
  [0, 32, [0.0, 0.10717919825507066]],
  [32, 32, [0.8928208017449293, 1.0]],
  [16, 32, [0.3363088286932747, 0.6636911713067253]],
  [7, 32, [0.11023836252604188, 0.3875499364924354]],
  [25, 32, [0.6124500635075647, 0.8897616374739581]],
  [1, 3, [0.06149194472039626, 0.7923403991979523]],
  [11, 16, [0.4440435583474066, 0.8583535614521797]],
];

describe('wilsonInterval', () => {
  it.each(CASES)('%i of %i matches statsmodels', (successes, n, [low, high]) => {
    const [lo, hi] = wilsonInterval(successes, n);
    expectCloseTo(lo, low, 1e-12);
    expectCloseTo(hi, high, 1e-12);
  });

  it('refuses what is not a proportion', () => {
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
    expect(() => wilsonInterval(1, 0)).toThrow(RangeError);
    expect(() => wilsonInterval(0.5, 2)).toThrow(RangeError);
  });
});
