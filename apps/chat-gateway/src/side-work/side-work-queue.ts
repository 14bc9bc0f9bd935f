import type { MetricsService } from '@echoloop/platform';
import type { Counter, Gauge } from 'prom-client';

export interface SideWorkLimits {
  /** At most this many jobs run at once. */
  concurrency: number;
  /** At most this many more wait for a slot, oldest first; beyond that a job is dropped (and counted). */
  queueSize: number;
}

/**
 * Bounded concurrency for work the gateway does beside the replies (model calls for the director, deep persona
 * extraction): a fixed number run at once, a short queue waits, and anything beyond is dropped at once instead of
 * piling up and competing with users' replies for the model server. A dropped job never ran: it is as if it had not
 * been due (the next due turn offers it again). Not a pool for work that must happen.
 */
export class SideWorkQueue {
  private active = 0;
  private readonly waiting: (() => Promise<void>)[] = [];
  private closed = false;
  private readonly dropped: Counter<'work'>;
  private readonly depth: Gauge<'work' | 'state'>;

  constructor(
    private readonly work: string,
    private readonly limits: SideWorkLimits,
    metrics: MetricsService,
  ) {
    this.dropped = metrics.counter(
      'side_work_dropped_total',
      'Side work (director steps, deep persona extractions) dropped because its queue was full or the app stopping',
      ['work'],
    );
    this.depth = metrics.gauge('side_work_jobs', 'Side work running or waiting for a slot', [
      'work',
      'state',
    ]);
    this.dropped.inc({ work }, 0);
    this.report();
  }

  /**
   * Runs `job` now if a slot is free, queues it if the queue has room, and otherwise drops it; says whether it was
   * accepted. `job` must not throw (it catches and counts its own failures); if it does, the error is swallowed.
   */
  offer(job: () => Promise<void>): boolean {
    if (this.closed) return this.drop();
    if (this.active < this.limits.concurrency) {
      this.start(job);
      return true;
    }
    if (this.waiting.length >= this.limits.queueSize) return this.drop();
    this.waiting.push(job);
    this.report();
    return true;
  }

  /** Drops (and counts) what waits, and accepts nothing more; running jobs finish on their own. */
  close(): void {
    this.closed = true;
    const left = this.waiting.splice(0).length;
    if (left > 0) this.dropped.inc({ work: this.work }, left);
    this.report();
  }

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  private start(job: () => Promise<void>): void {
    this.active += 1;
    this.report();
    void Promise.resolve()
      .then(job)
      .catch(() => undefined)
      .finally(() => {
        this.active -= 1;
        const next = this.waiting.shift();
        if (next) this.start(next);
        else this.report();
      });
  }

  private drop(): false {
    this.dropped.inc({ work: this.work });
    return false;
  }

  private report(): void {
    this.depth.set({ work: this.work, state: 'running' }, this.active);
    this.depth.set({ work: this.work, state: 'queued' }, this.waiting.length);
  }
}
