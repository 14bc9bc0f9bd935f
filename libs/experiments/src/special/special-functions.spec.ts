import { expectCloseTo } from '../testing/close-to';
import { chiSquareSurvival } from './chi-square';
import { normalCdf, normalQuantile } from './normal';
import { studentTCdf, studentTQuantile } from './student-t';

// Reference values: scipy 1.17.1 (python -m venv /tmp/stats-venv; pip install scipy numpy), printed
// with repr(float(...)) of the expressions named in each block.

describe('normalCdf', () => {
  // norm.cdf(z)
  it.each([
    [-10, 7.61985302416047e-24],
    [-5, 2.866515718791933e-7],
    [-1.96, 0.024997895148220435],
    [-1, 0.15865525393145707],
    [-0.3, 0.3820885778110474],
    [0.25, 0.5987063256829237],
    [1, 0.8413447460685429],
    [3, 0.9986501019683699],
    [8, 0.9999999999999993],
  ])('Φ(%p) = %p', (z, expected) => expectCloseTo(normalCdf(z), expected, 1e-12));

  // norm.cdf(z) for z far out (a difference over a near-zero variance): exactly 0 and 1, never an error.
  it.each([
    [-2.3765e8, 0],
    [2.3765e8, 1],
    [-1e154, 0],
    [40, 1],
  ])('Φ(%p) = %p far in the tails', (z, expected) => expect(normalCdf(z)).toBe(expected));

  it('is exactly 0.5 at 0 and symmetric', () => {
    expect(normalCdf(0)).toBe(0.5);
    expectCloseTo(normalCdf(1.3) + normalCdf(-1.3), 1, 1e-15);
  });
});

describe('normalQuantile', () => {
  // norm.ppf(p)
  it.each([
    [1e-12, -7.034483825301131],
    [0.001, -3.090232306167813],
    [0.025, -1.9599639845400545],
    [0.3, -0.5244005127080409],
    [0.7, 0.5244005127080407],
    [0.975, 1.959963984540054],
    [0.999, 3.090232306167813],
  ])('Φ⁻¹(%p) = %p', (p, expected) => expectCloseTo(normalQuantile(p), expected, 1e-12));

  it('handles the ends and rejects p outside [0, 1]', () => {
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(() => normalQuantile(1.5)).toThrow(RangeError);
  });
});

describe('studentTCdf', () => {
  // t.cdf(x, df) for x in [-3.5, -1, 0.3, 2.0, 8.0]
  const xs = [-3.5, -1, 0.3, 2.0, 8.0];
  it.each([
    [
      1,
      [0.08858553278290476, 0.25000000000000006, 0.5927735790777423, 0.8524163823495667, 0.9604165758394344],
    ],
    [
      5,
      [0.008642215892646679, 0.18160873382456144, 0.6118754788683627, 0.9490302605850708, 0.9997535466697138],
    ],
    [
      30,
      [0.0007384037188221266, 0.1626543077130151, 0.6168769473578236, 0.9726874775185085, 0.9999999968670887],
    ],
    [
      1000,
      [0.0002428871729839163, 0.15877620904233627, 0.617880247916378, 0.9771148267533741, 0.9999999999999983],
    ],
  ])('df = %p', (df, expected) => {
    xs.forEach((x, i) => expectCloseTo(studentTCdf(x, df), expected[i] ?? NaN, 1e-10));
  });

  it('is the normal CDF at infinite df', () => {
    expect(studentTCdf(1.5, Infinity)).toBe(normalCdf(1.5));
  });
});

describe('studentTQuantile', () => {
  // t.ppf(p, df) for p in [1e-8, 0.025, 0.6, 0.975, 0.995]
  const ps = [1e-8, 0.025, 0.6, 0.975, 0.995];
  it.each([
    [
      1,
      [-31830988.61837906, -12.706204736174705, 0.32491969623290634, 12.706204736174694, 63.656741162871526],
    ],
    [5, [-62.4045061109673, -2.5705818356363155, 0.2671808657041451, 2.5705818356363146, 4.032142983555228]],
    [
      30,
      [-7.556534651885402, -2.042272456301238, 0.2556053649519128, 2.0422724563012378, 2.7499956535672254],
    ],
    [
      1000,
      [-5.657912337679105, -1.9623390808264085, 0.25341451583949876, 1.9623390808264083, 2.580754698065951],
    ],
  ])('df = %p', (df, expected) => {
    ps.forEach((p, i) => expectCloseTo(studentTQuantile(p, df), expected[i] ?? NaN, 1e-10));
  });

  it('inverts the CDF', () => {
    for (const df of [2.5, 17.3, 250]) {
      for (const p of [0.01, 0.3, 0.9]) expectCloseTo(studentTCdf(studentTQuantile(p, df), df), p, 1e-12);
    }
  });
});

describe('chiSquareSurvival', () => {
  // chi2.sf(x, df) for x in [0.001, 0.5, 3.84, 10.0, 40.0]
  const xs = [0.001, 0.5, 3.84, 10.0, 40.0];
  it.each([
    [
      1,
      [
        0.9747728793699604, 0.47950012218695337, 0.05004352124870519, 0.001565402258002549,
        2.5396285894708634e-10,
      ],
    ],
    [
      2,
      [
        0.9995001249791693, 0.7788007830714049, 0.14660696213035013, 0.006737946999085468,
        2.0611536224385566e-9,
      ],
    ],
    [
      5,
      [0.9999999983185123, 0.9921232932326296, 0.5726744598320888, 0.07523524614651217, 1.493367900050393e-7],
    ],
  ])('df = %p', (df, expected) => {
    xs.forEach((x, i) => expectCloseTo(chiSquareSurvival(x, df), expected[i] ?? NaN, 1e-10));
  });

  it('is 1 at x <= 0', () => expect(chiSquareSurvival(0, 3)).toBe(1));

  // chi2.sf(x, df) for a statistic far past any table (a sample-ratio check on huge or degenerate counts): 0.0
  it.each([
    [5.647936145187668e16, 1],
    [1e300, 3],
    [1600, 1],
  ])('is exactly 0 at x = %p, df = %p', (x, df) => expect(chiSquareSurvival(x, df)).toBe(0));
});
