// The export thread's entry (see export-thread.ts): one export over a connection of its own, its progress and its
// result posted back to the thread that started it.
import { dataSourceOptions } from '@echoloop/persistence';
import { parentPort, workerData } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { exportDataset } from '../export-dataset';
import type { ThreadMessage, ThreadRequest } from './export-thread';

async function main(): Promise<void> {
  const { databaseUrl, clockOffsetMs, request } = workerData as ThreadRequest;
  const post = (message: ThreadMessage) => parentPort?.postMessage(message);
  const db = await new DataSource(
    dataSourceOptions({ url: databaseUrl, poolSize: 2, applicationName: 'echoloop-export' }),
  ).initialize();
  try {
    const { dir, manifest, userIds } = await exportDataset({
      ...request,
      db,
      onProgress: (read, total) => post({ kind: 'progress', read, total }),
      now: () => new Date(Date.now() + clockOffsetMs),
    });
    post({ kind: 'done', dir, manifest, userIds: [...userIds] });
  } finally {
    await db.destroy();
  }
}

main().catch((error: unknown) => {
  // A code and the message of our own errors; never a row's text (a failed export's reason stays a code).
  parentPort?.postMessage({
    kind: 'failed',
    error: error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error',
  } satisfies ThreadMessage);
});
