/** Asserts |actual − expected| <= rel·|expected| (or <= abs near 0), with a readable failure. */
export function expectCloseTo(actual: number, expected: number, rel = 1e-9, abs = 0): void {
  const tolerance = Math.max(rel * Math.abs(expected), abs);
  if (!(Math.abs(actual - expected) <= tolerance)) {
    throw new Error(`expected ${actual} to be within ${tolerance} of ${expected}`);
  }
}
