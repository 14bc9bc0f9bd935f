import {
  type DatasetFormat,
  datasetFilters,
  type DatasetKind,
  LabelledTurnsSource,
  pseudonymKey,
} from '@echoloop/datasets';
import type { DatasetExportEntity } from '@echoloop/persistence';
import { CLOCK, type Clock, every, PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { AccountChanges } from '../auth/account-changes';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ArtifactStore } from './artifact-store';
import { ExportsRepository } from './exports.repository';

/** A running export beats this often; one silent for LEASE_MS is taken to have died with its process. */
const HEARTBEAT_MS = 15_000;
const LEASE_MS = 120_000;

/**
 * Runs queued exports one at a time in the background (any replica may take one; a claimed export is never run
 * twice at once), and removes the files of erased exports. An export whose process died (its heartbeat stopped)
 * runs again.
 */
@Injectable()
export class ExportRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly worker: PeriodicWorker;
  private readonly key: string;

  constructor(
    private readonly repository: ExportsRepository,
    private readonly store: ArtifactStore,
    private readonly turns: LabelledTurnsSource,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    changes: AccountChanges,
    private readonly logger: PinoLogger,
  ) {
    this.key = pseudonymKey(env);
    this.worker = new PeriodicWorker(() => this.round(), logger, {
      what: 'export round',
      everyMs: env.EXPORT_SWEEP_MS,
      rerunOnWake: true,
    });
    changes.subscribe(() => this.wake());
  }

  onApplicationBootstrap(): void {
    this.worker.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.worker.stop();
  }

  /** Looks for work now (a new export, an erasure); one round at a time. */
  wake(): void {
    void this.worker.wake();
  }

  private async round(): Promise<void> {
    await this.repository.requeueStale(new Date(this.clock().getTime() - LEASE_MS));
    for (const erased of await this.repository.erasedWithFiles()) {
      await this.store.remove(erased.id);
      await this.repository.filesRemoved(erased.id);
    }
    for (
      let job = await this.repository.claim(this.clock());
      job;
      job = await this.repository.claim(this.clock())
    )
      await this.run(job);
  }

  private async run(job: DatasetExportEntity): Promise<void> {
    // Beats while the export runs, uploads included (progress beats too).
    const stopBeating = every(HEARTBEAT_MS, () => this.repository.heartbeat(job.id, this.clock()));
    try {
      const { manifest, userIds } = await this.turns.export({
        id: job.id,
        kind: job.kind as DatasetKind,
        format: job.format as DatasetFormat,
        filters: datasetFilters.parse(job.filters),
        outDir: this.store.staging(),
        privacy: { pseudonymKey: this.key },
        consentDefault: this.env.TRAINING_CONSENT_DEFAULT,
        onProgress: (read, total) => this.repository.progress(job.id, read, total, this.clock()),
        now: this.clock,
      });
      await this.store.publish(job.id);
      const status = await this.repository.finish(job.id, { ...manifest }, [...userIds], this.clock());
      if (status === 'erased') await this.store.remove(job.id);
      this.logger.info({ exportId: job.id, rows: manifest.rows, status }, 'export finished');
    } catch (error) {
      this.logger.error({ exportId: job.id, err: error }, 'export failed');
      await this.store.remove(job.id);
      await this.repository.fail(job.id, 'export_failed', this.clock());
    } finally {
      stopBeating();
    }
  }
}
