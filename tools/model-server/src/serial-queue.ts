/** Runs jobs one at a time in arrival order; a job whose signal aborts while waiting never runs. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  get pending(): number {
    return this.waiting;
  }

  run<T>(job: () => Promise<T>, signal: AbortSignal): Promise<T> {
    this.waiting += 1;
    const result = this.tail.then(() => {
      this.waiting -= 1;
      if (signal.aborted) throw new QueuedJobAbortedError();
      return job();
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export class QueuedJobAbortedError extends Error {
  constructor() {
    super('the client went away while the request was queued');
  }
}
