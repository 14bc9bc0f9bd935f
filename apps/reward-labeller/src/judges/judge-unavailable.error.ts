/**
 * The judge endpoint cannot be reached at all (connection refused, 5xx, circuit open) even after retries: an
 * outage, not a verdict on the turn. The consumer keeps the turn and retries it until the judge is back.
 */
export class JudgeUnavailableError extends Error {
  override readonly name = 'JudgeUnavailableError';
}
