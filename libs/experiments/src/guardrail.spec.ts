import { guardrailBreached } from './guardrail';

describe('guardrailBreached', () => {
  it('breaches only on a significant move the bad way', () => {
    expect(guardrailBreached({ pValue: 0.01, difference: 0.2 }, 'increase_is_bad', 0.05)).toBe(true);
    expect(guardrailBreached({ pValue: 0.01, difference: -0.2 }, 'increase_is_bad', 0.05)).toBe(false);
    expect(guardrailBreached({ pValue: 0.01, difference: -0.2 }, 'decrease_is_bad', 0.05)).toBe(true);
    expect(guardrailBreached({ pValue: 0.01, difference: 0.2 }, 'decrease_is_bad', 0.05)).toBe(false);
  });

  it('does not breach without significance or without a difference', () => {
    expect(guardrailBreached({ pValue: 0.05, difference: 0.2 }, 'increase_is_bad', 0.05)).toBe(false);
    expect(guardrailBreached({ pValue: 0.2, difference: 5 }, 'increase_is_bad', 0.05)).toBe(false);
    expect(guardrailBreached({ pValue: 0, difference: 0 }, 'increase_is_bad', 0.05)).toBe(false);
  });
});
