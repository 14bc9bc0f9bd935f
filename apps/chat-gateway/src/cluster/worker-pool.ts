import type { Cluster, Worker } from 'node:cluster';
import { Backoff } from '@echoloop/platform';
import type { Logger } from 'pino';

export interface WorkerPoolOptions {
  workers: number;
  /** Variables every worker gets (e.g. a JWT_SECRET the primary drew, so all workers accept each other's tokens). */
  env: Record<string, string>;
  logger: Logger;
  /** A worker that keeps dying is restarted after a doubling delay, up to this long. */
  maxRestartDelayMs?: number;
}

/**
 * The cluster primary: forks `workers` gateway processes that share the listening port (each runs the whole app;
 * they coordinate through PostgreSQL only, exactly as replicas on other machines do), forks a replacement when one
 * dies, and on SIGTERM or SIGINT stops them all and exits once they have.
 */
export class WorkerPool {
  private stopping = false;
  private readonly restartDelay: Backoff;
  private readonly live = new Set<Worker>();

  constructor(
    private readonly cluster: Cluster,
    private readonly options: WorkerPoolOptions,
  ) {
    this.restartDelay = new Backoff({ initialMs: 100, maxMs: options.maxRestartDelayMs ?? 10_000 });
  }

  start(): void {
    for (let i = 0; i < this.options.workers; i++) this.fork();
    this.cluster.on('exit', (worker, code, signal) => this.exited(worker, code, signal));
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => this.stop(signal));
  }

  private fork(): void {
    const worker = this.cluster.fork(this.options.env);
    this.live.add(worker);
    // A worker that stayed up a while resets the backoff.
    const healthy = setTimeout(() => this.restartDelay.reset(), 30_000);
    healthy.unref();
    worker.once('exit', () => clearTimeout(healthy));
  }

  private exited(worker: Worker, code: number | null, signal: string | null): void {
    this.live.delete(worker);
    if (this.stopping) {
      if (this.live.size === 0) process.exit(0);
      return;
    }
    const restartInMs = this.restartDelay.next();
    this.options.logger.error(
      { pid: worker.process.pid, code, signal, restartInMs },
      'gateway worker died; starting another',
    );
    setTimeout(() => this.fork(), restartInMs);
  }

  private stop(signal: NodeJS.Signals): void {
    this.stopping = true;
    if (this.live.size === 0) process.exit(0);
    for (const worker of this.live) worker.process.kill(signal);
  }
}
