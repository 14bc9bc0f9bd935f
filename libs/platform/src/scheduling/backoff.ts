import { ExponentialBackoff, type IBackoff, noJitterGenerator } from 'cockatiel';

export interface BackoffOptions {
  /** The first delay. */
  initialMs: number;
  /** No delay is longer (the first included). */
  maxMs: number;
}

/**
 * The one retry-delay policy: cockatiel's exponential backoff, `initialMs` first, doubled after each failure, capped
 * at `maxMs`; `reset` after a success. Without jitter, so a retry's timing is what its caller states.
 */
export class Backoff {
  private readonly factory: ExponentialBackoff<unknown>;
  private current: IBackoff<unknown> | undefined;

  constructor({ initialMs, maxMs }: BackoffOptions) {
    this.factory = new ExponentialBackoff({
      initialDelay: initialMs,
      maxDelay: maxMs,
      generator: noJitterGenerator,
    });
  }

  /** The delay before the next attempt. */
  next(): number {
    this.current = this.current ? this.current.next(undefined) : this.factory.next();
    return this.current.duration;
  }

  /** The next failure starts from `initialMs` again. */
  reset(): void {
    this.current = undefined;
  }
}

/** The delay before retry number `attempt` (1 for the first) of a loop that keeps no Backoff of its own. */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const backoff = new Backoff(options);
  let delay = 0;
  for (let i = 0; i < attempt; i++) delay = backoff.next();
  return delay;
}
