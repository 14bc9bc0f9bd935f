import {
  ArtifactStore,
  EXPORT_LEASE_MS,
  ExportsRepository,
  pseudonymKey,
  runExportJob,
} from '@echoloop/datasets';
import { CLOCK, type Clock, every, PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { AccountChanges } from '../auth/account-changes';
import { GATEWAY_ENV, type GatewayEnv } from '../env';

/**
 * Runs queued exports one at a time in the background, each on a thread of its own so that it cannot slow live
 * chat (any replica may take one; a claimed export is never run twice at once), and removes the files of erased
 * exports. An export whose process died (its heartbeat stopped) runs again; one running when the gateway stops is
 * queued again at once.
 */
@Injectable()
export class ExportRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly worker: PeriodicWorker;
  private readonly key: string;
  private readonly stopping = new AbortController();

  constructor(
    private readonly repository: ExportsRepository,
    private readonly store: ArtifactStore,
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
    this.stopping.abort(new Error('the gateway is stopping'));
    return this.worker.stop();
  }

  /** Looks for work now (a new export, an erasure); one round at a time. */
  wake(): void {
    void this.worker.wake();
  }

  private async round(): Promise<void> {
    await this.repository.requeueStale(new Date(this.clock().getTime() - EXPORT_LEASE_MS));
    for (const erased of await this.repository.erasedWithFiles()) {
      await this.store.remove(erased.id);
      await this.repository.filesRemoved(erased.id);
    }
    while (!this.stopping.signal.aborted) {
      const job = await this.repository.claim(this.clock());
      if (!job) return;
      const result = await runExportJob(job, {
        repository: this.repository,
        store: this.store,
        databaseUrl: this.env.DATABASE_URL,
        pseudonymKey: this.key,
        consentDefault: this.env.TRAINING_CONSENT_DEFAULT,
        clock: this.clock,
        every,
        signal: this.stopping.signal,
      });
      if (result.status === 'failed')
        this.logger.error({ exportId: job.id, err: result.error }, 'export failed');
      else if (result.status === 'requeued') this.logger.info({ exportId: job.id }, 'export queued again');
      else
        this.logger.info(
          { exportId: job.id, rows: result.manifest.rows, status: result.status },
          'export finished',
        );
    }
  }
}
