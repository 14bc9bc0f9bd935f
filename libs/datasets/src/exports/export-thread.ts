import { Worker } from 'node:worker_threads';
import type { ExportRequest } from '../export-dataset';
import type { Manifest } from '../manifest';

/** What an export thread is given: the export, and how to reach the database and the clock of its caller. */
export interface ThreadRequest {
  databaseUrl: string;
  /** The caller's clock minus the wall clock, so that an injected clock dates the manifest as it would. */
  clockOffsetMs: number;
  request: Omit<ExportRequest, 'db' | 'onProgress' | 'now'>;
}

export type ThreadMessage =
  | { kind: 'progress'; read: number; total: number }
  | { kind: 'done'; dir: string; manifest: Manifest; userIds: string[] }
  | { kind: 'failed'; error: string };

export interface ThreadExportOptions {
  databaseUrl: string;
  now: () => Date;
  onProgress?: (read: number, total: number) => void | Promise<void>;
  /** Aborted: the thread is stopped at once and the export rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs one export on a worker thread of its own: reading, redaction and file writing (the CPU of an export) never
 * run on the caller's event loop, so a long export cannot delay a streaming reply. Progress arrives as the thread
 * posts it, one callback at a time: counts that arrive while one runs are folded into the newest.
 */
export function exportOnThread(
  request: ThreadRequest['request'],
  options: ThreadExportOptions,
): Promise<{ dir: string; manifest: Manifest; userIds: Set<string> }> {
  const workerData: ThreadRequest = {
    databaseUrl: options.databaseUrl,
    clockOffsetMs: options.now().getTime() - Date.now(),
    request,
  };
  // Resolved without an extension: the compiled .js in a build, the .ts under @swc-node/register (whose hook the
  // thread inherits through execArgv).
  const entry = require.resolve('./export-worker');
  const worker = new Worker(`require(${JSON.stringify(entry)})`, { eval: true, workerData });
  return new Promise((resolve, reject) => {
    let settled = false;
    let reporting: Promise<void> = Promise.resolve();
    let latest: { read: number; total: number } | null = null;
    // One callback at a time; counts that arrive meanwhile are folded into the newest.
    const report = (read: number, total: number) => {
      const idle = latest === null;
      latest = { read, total };
      if (!idle || !options.onProgress) return;
      reporting = reporting.then(async () => {
        while (latest) {
          const next: { read: number; total: number } = latest;
          await Promise.resolve(options.onProgress?.(next.read, next.total)).catch(() => undefined);
          if (latest === next) latest = null;
        }
      });
    };
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      options.signal?.removeEventListener('abort', abort);
      finish();
    };
    const abort = () => {
      settle(() => reject(options.signal?.reason ?? new Error('export aborted')));
      void worker.terminate();
    };
    if (options.signal?.aborted) return abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    worker.on('message', (message: ThreadMessage) => {
      if (message.kind === 'progress') report(message.read, message.total);
      else if (message.kind === 'done') {
        const result = { dir: message.dir, manifest: message.manifest, userIds: new Set(message.userIds) };
        // The last count is written before the export is called done.
        void reporting.then(() => settle(() => resolve(result)));
      } else settle(() => reject(new Error(`export thread failed: ${message.error}`)));
    });
    worker.on('error', (error) => settle(() => reject(error)));
    worker.on('exit', (code) => {
      if (code !== 0) settle(() => reject(new Error(`export thread exited (${code}) before it finished`)));
      else void reporting.then(() => settle(() => reject(new Error('export thread ended without a result'))));
    });
  });
}
