import type { DatasetExportEntity } from '@echoloop/persistence';
import type { DatasetFormat } from '../writers';
import { datasetFilters } from '../filters';
import type { DatasetKind } from '../kinds/catalog';
import type { Manifest } from '../manifest';
import type { ArtifactStore } from './artifact-store';
import { exportOnThread } from './export-thread';
import type { ExportsRepository } from './exports.repository';

/** A running export beats this often; one silent for EXPORT_LEASE_MS is taken to have died with its process. */
const HEARTBEAT_MS = 15_000;
export const EXPORT_LEASE_MS = 120_000;

export interface ExportJobDeps {
  repository: ExportsRepository;
  store: ArtifactStore;
  databaseUrl: string;
  pseudonymKey: string;
  consentDefault: boolean;
  clock: () => Date;
  /** Calls `beat` every `ms` until the returned function is called (the platform's `every`). */
  every: (ms: number, beat: () => unknown) => () => void;
  /** Aborted: the thread stops and the export is queued again for the next runner. */
  signal?: AbortSignal;
  onProgress?: (read: number, total: number) => void;
}

export type ExportJobResult =
  | { status: 'succeeded' | 'erased'; manifest: Manifest }
  | { status: 'failed'; error: unknown }
  | { status: 'requeued' };

/**
 * Runs one recorded export, whoever made it (the gateway's runner or the CLI): its files written on a thread of
 * their own into the store's staging folder, published, and the users they hold recorded with its success, so that
 * erasing one of them reaches the files. A failed export leaves no file.
 */
export async function runExportJob(job: DatasetExportEntity, deps: ExportJobDeps): Promise<ExportJobResult> {
  const { repository, store, clock } = deps;
  // Beats while the export runs, uploads included (progress beats too).
  const stopBeating = deps.every(HEARTBEAT_MS, () => repository.heartbeat(job.id, clock()));
  try {
    const { manifest, userIds } = await exportOnThread(
      {
        id: job.id,
        kind: job.kind as DatasetKind,
        format: job.format as DatasetFormat,
        filters: datasetFilters.parse(job.filters),
        outDir: store.staging(),
        privacy: { pseudonymKey: deps.pseudonymKey },
        consentDefault: deps.consentDefault,
      },
      {
        databaseUrl: deps.databaseUrl,
        now: clock,
        ...(deps.signal && { signal: deps.signal }),
        onProgress: async (read, total) => {
          deps.onProgress?.(read, total);
          await repository.progress(job.id, read, total, clock());
        },
      },
    );
    await store.publish(job.id);
    const status = await repository.finish(job.id, { ...manifest }, [...userIds], clock());
    if (status === 'erased') await store.remove(job.id);
    return { status, manifest };
  } catch (error) {
    await store.remove(job.id);
    if (deps.signal?.aborted) {
      await repository.requeue(job.id);
      return { status: 'requeued' };
    }
    await repository.fail(job.id, 'export_failed', clock());
    return { status: 'failed', error };
  } finally {
    stopBeating();
  }
}
