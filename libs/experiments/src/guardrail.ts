export type GuardrailDirection = 'increase_is_bad' | 'decrease_is_bad';

/**
 * True only when the (sequential, running-minimum) p-value is below alpha AND the difference moves
 * the bad way: a significant improvement never stops a rollout.
 */
export function guardrailBreached(
  result: { pValue: number; difference: number },
  direction: GuardrailDirection,
  alpha: number,
): boolean {
  if (!(result.pValue < alpha)) return false;
  return direction === 'increase_is_bad' ? result.difference > 0 : result.difference < 0;
}
