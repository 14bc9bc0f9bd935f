import type { Counter } from 'prom-client';

/** What the process-level handlers need: where to log, what to count, and how to end the process. */
export interface ProcessErrorSinks {
  error(fields: { err: unknown; kind: ProcessErrorKind }, message: string): void;
  fatal(fields: { err: unknown; kind: ProcessErrorKind }, message: string): void;
  counter: Counter<'kind'>;
  /** Ends the process after an uncaught exception: close what can be closed, then exit non-zero. */
  exit(): void;
}

export type ProcessErrorKind = 'unhandled_rejection' | 'uncaught_exception';

/** The part of `process` the handlers attach to (an EventEmitter in tests). */
export interface ProcessEvents {
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  on(event: 'uncaughtException', listener: (error: Error) => void): unknown;
  off(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  off(event: 'uncaughtException', listener: (error: Error) => void): unknown;
}

/**
 * Errors nothing handled, logged and counted (`process_errors_total{kind}`) instead of ending the process
 * silently. A promise rejection nobody awaited leaves the process sound: it is logged and the process goes on. An
 * uncaught exception may have left any state half-changed (Node's guidance), so it ends the process on purpose,
 * after the log line and a graceful close; the supervisor (the gateway's worker pool, systemd, Kubernetes)
 * starts a new one. Returns the function that removes the handlers.
 */
export function handleProcessErrors(sinks: ProcessErrorSinks, target: ProcessEvents = process): () => void {
  let ending = false;
  const rejected = (reason: unknown) => {
    sinks.counter.inc({ kind: 'unhandled_rejection' });
    sinks.error(
      { err: reason, kind: 'unhandled_rejection' },
      'a promise was rejected and nothing handled it',
    );
  };
  const uncaught = (error: Error) => {
    sinks.counter.inc({ kind: 'uncaught_exception' });
    sinks.fatal({ err: error, kind: 'uncaught_exception' }, 'uncaught exception: the process ends');
    if (ending) return;
    ending = true;
    sinks.exit();
  };
  target.on('unhandledRejection', rejected);
  target.on('uncaughtException', uncaught);
  return () => {
    target.off('unhandledRejection', rejected);
    target.off('uncaughtException', uncaught);
  };
}
