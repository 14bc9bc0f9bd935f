import { TokenCalibration } from './token-calibration';

describe('TokenCalibration', () => {
  it('starts at 1 and follows what the endpoint reports, per checkpoint', () => {
    const calibration = new TokenCalibration(0.5);
    expect(calibration.factor('a')).toBe(1);
    calibration.observe('a', 100, 150);
    expect(calibration.factor('a')).toBe(1.5);
    calibration.observe('a', 100, 250);
    expect(calibration.factor('a')).toBe(2);
    expect(calibration.factor('b')).toBe(1);
  });

  it('ignores empty observations and bounds outliers', () => {
    const calibration = new TokenCalibration();
    calibration.observe('a', 0, 100);
    calibration.observe('a', 100, 0);
    expect(calibration.factor('a')).toBe(1);
    calibration.observe('a', 10, 10_000);
    expect(calibration.factor('a')).toBe(4);
  });
});
