export type ProcessFailure = 'empty' | 'truncated' | 'cancelled' | 'think_markup_in_reply' | 'empty_think';

export interface ProcessInput {
  content: string;
  /** The reasoning the server split off; null when the reply had no think block at all. */
  reasoning: string | null;
  finishReason: 'stop' | 'length' | 'cancelled';
}

/**
 * R_process of Echo-N1's R = R_process × r_empathy: 1 for a well-formed rollout, 0 otherwise, so a malformed
 * reply earns nothing whatever the judge thinks of it.
 */
export function processGate(input: ProcessInput): { value: 0 | 1; failures: ProcessFailure[] } {
  const failures: ProcessFailure[] = [];
  if (input.content.trim() === '') failures.push('empty');
  if (input.finishReason === 'length') failures.push('truncated');
  if (input.finishReason === 'cancelled') failures.push('cancelled');
  if (/<\/?think>/i.test(input.content)) failures.push('think_markup_in_reply');
  if (input.reasoning !== null && input.reasoning.trim() === '') failures.push('empty_think');
  return { value: failures.length === 0 ? 1 : 0, failures };
}
