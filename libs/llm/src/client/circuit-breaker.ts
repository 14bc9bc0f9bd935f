export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before letting one probe through. */
  cooldownMs: number;
  now?: () => number;
}

/**
 * Per-endpoint breaker: after `failureThreshold` consecutive failures the endpoint is skipped for `cooldownMs`,
 * then a single probe decides whether it closes again. Keeps a dead vLLM replica from adding its timeout to
 * every user's first token.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt?: number;
  private probing = false;
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  get state(): 'closed' | 'open' | 'half-open' {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  /** Whether a call may go through now; in half-open, only one at a time. */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.probing) return false;
    this.probing = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.probing = false;
  }

  /** The call neither proved nor disproved the endpoint (cancelled, or the request itself was refused). */
  release(): void {
    this.probing = false;
  }

  failure(): void {
    this.probing = false;
    this.failures++;
    if (this.openedAt !== undefined || this.failures >= this.options.failureThreshold)
      this.openedAt = this.now();
  }
}
