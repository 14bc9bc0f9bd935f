export interface CircuitBreakerOptions {
  /** Consecutive failures that open the circuit. */
  failureThreshold: number;
  /** How long an open circuit refuses calls before letting one trial through. */
  cooldownMs: number;
  /** A trial unsettled this long (its caller vanished) no longer blocks the next one. Default: `cooldownMs`. */
  trialTimeoutMs?: number;
  now?: () => number;
}

/**
 * The right to make one call through the breaker. Settle it exactly once; later settles are ignored, so a caller
 * can settle on the outcome it knows and `release()` in a `finally` for every path it did not foresee.
 */
export interface BreakerLease {
  /** The endpoint answered completely. */
  succeed(): void;
  /** The endpoint failed (timeout, refused connection, 5xx). */
  fail(): void;
  /** The call proved nothing either way: cancelled, refused as a bad request, or abandoned by its caller. */
  release(): void;
}

type Outcome = 'success' | 'failure' | 'neutral';

/**
 * Per-endpoint breaker: after `failureThreshold` consecutive failures the endpoint is skipped for `cooldownMs`,
 * then a single trial decides whether it closes again. Keeps a dead vLLM replica from adding its timeout to
 * every user's first token.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt?: number;
  private trial?: { id: number; since: number };
  private leasesGiven = 0;
  private readonly now: () => number;
  private readonly trialTimeoutMs: number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
    this.trialTimeoutMs = options.trialTimeoutMs ?? options.cooldownMs;
  }

  get state(): 'closed' | 'open' | 'half-open' {
    if (this.openedAt === undefined) return 'closed';
    return this.now() - this.openedAt >= this.options.cooldownMs ? 'half-open' : 'open';
  }

  /** A lease when a call may go through now, else undefined; in half-open, one trial at a time. */
  acquire(): BreakerLease | undefined {
    const state = this.state;
    if (state === 'closed') return this.lease(undefined);
    if (state === 'open') return undefined;
    if (this.trial && this.now() - this.trial.since < this.trialTimeoutMs) return undefined;
    const id = ++this.leasesGiven;
    this.trial = { id, since: this.now() };
    return this.lease(id);
  }

  private lease(trialId: number | undefined): BreakerLease {
    let settled = false;
    const settle = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      this.settle(trialId, outcome);
    };
    return {
      succeed: () => settle('success'),
      fail: () => settle('failure'),
      release: () => settle('neutral'),
    };
  }

  private settle(trialId: number | undefined, outcome: Outcome): void {
    const isTrial = trialId !== undefined && this.trial?.id === trialId;
    if (isTrial) this.trial = undefined;
    if (outcome === 'success') {
      // Any complete answer proves the endpoint, even one that started before the circuit opened.
      this.failures = 0;
      this.openedAt = undefined;
      this.trial = undefined;
    } else if (outcome === 'failure') {
      // While open, only the trial's failure is news: calls that began before the circuit opened do not
      // push recovery further away.
      if (this.openedAt !== undefined && !isTrial) return;
      this.failures++;
      if (isTrial || this.failures >= this.options.failureThreshold) this.openedAt = this.now();
    }
  }
}
