/** Where a worker reports a round that failed (a pino logger, or Nest's). */
export interface WorkerLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface PeriodicWorkerOptions {
  /** What the work is called in the line a failed round logs ("retention sweep"). */
  what: string;
  /** How often a round starts by itself once started. */
  everyMs: number;
  /**
   * A wake during a round runs one more round after it: for work that may arrive after the round stopped looking
   * (a new export while the previous one runs). Otherwise the wake joins the running round.
   */
  rerunOnWake?: boolean;
}

/**
 * The one periodic single-flight loop: a round every `everyMs` and whenever woken, never two at once. A failed round
 * is logged and the next one retries; `stop` waits for the running round.
 */
export class PeriodicWorker<T = void> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T | undefined> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly round: () => Promise<T>,
    private readonly logger: WorkerLogger,
    private readonly options: PeriodicWorkerOptions,
  ) {}

  /** Starts the rounds, the first now unless `{ now: false }`. */
  start({ now = true }: { now?: boolean } = {}): void {
    this.stopped = false;
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.wake(), this.options.everyMs);
    this.timer.unref();
    if (now) void this.wake();
  }

  /** A round now, or the running one (see rerunOnWake); resolves to its result, undefined when it failed. */
  wake(): Promise<T | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    if (this.running) {
      if (this.options.rerunOnWake) this.again = true;
      return this.running;
    }
    const round = this.round()
      .catch((error: unknown) => {
        this.logger.warn({ err: error }, `${this.options.what} failed; the next one retries`);
        return undefined;
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.wake();
        }
      });
    this.running = round;
    return round;
  }

  /** No more rounds; resolves when the running one has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    this.again = false;
    await this.running;
  }
}

/**
 * Calls `beat` every `everyMs` until the returned function is called (a lease kept alive while work runs). A beat
 * that fails is dropped: the next one is the retry.
 */
export function every(everyMs: number, beat: () => unknown): () => void {
  const timer = setInterval(
    () =>
      void Promise.resolve()
        .then(beat)
        .catch(() => undefined),
    everyMs,
  );
  timer.unref();
  return () => clearInterval(timer);
}
