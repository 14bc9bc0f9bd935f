/**
 * Per-key token buckets: `capacity` requests at once, refilled at `capacity` per `windowMs`. In memory: one
 * gateway process enforces its own share (a shared store is the step for several replicas).
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly capacity: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The milliseconds until a token is available (0: now), without taking it. */
  wait(key: string): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 0;
    const rate = this.capacity / this.windowMs;
    const tokens = Math.min(this.capacity, bucket.tokens + (this.now() - bucket.at) * rate);
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) / rate);
  }

  /** Takes a token; returns 0 when allowed, else the milliseconds until one is available. */
  take(key: string): number {
    const now = this.now();
    const rate = this.capacity / this.windowMs;
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    const tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * rate);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return Math.ceil((1 - tokens) / rate);
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    if (this.buckets.size > 100_000) this.evictFull(now, rate);
    return 0;
  }

  /** Full buckets carry no information: drop them so idle users cost no memory. */
  private evictFull(now: number, rate: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * rate >= this.capacity) this.buckets.delete(key);
    }
  }
}
