import { traced } from '@echoloop/tracing';
import type { RlJobStatus } from '@echoloop/vocabulary';
import type { RlJobEntity } from '@echoloop/persistence';
import { CLOCK, type Clock, every, MetricsService, PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { OrchestratorEnv } from '../env';
import { RlJobsRepository } from '../jobs/rl-jobs.repository';
import { ORCHESTRATOR_ENV } from '../tokens';
import { JobFailure, transient } from '../jobs/job-failure';
import { RefreshStages, selectionOf } from './refresh-stages';

/** A replica holds the active job this long without renewing; then another replica (or its restart) takes it. */
export const LEASE_MS = 20_000;

/**
 * Drives the active refresh through its stages, one step per round, from whichever replica holds its lease: a
 * restarted orchestrator picks up a job where it stood (a Ray job keeps running meanwhile). A failure at any stage
 * retires the candidate and leaves the default as it was; the job says why.
 */
@Injectable()
export class RefreshDriver implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly rounds: PeriodicWorker;
  private readonly finished;
  private readonly stageSeconds;

  constructor(
    private readonly jobs: RlJobsRepository,
    private readonly stages: RefreshStages,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.finished = metrics.counter('rl_jobs_finished_total', 'RL refreshes that ended, by status', [
      'status',
    ]);
    this.stageSeconds = metrics.histogram(
      'rl_stage_seconds',
      'Wall time of each refresh stage step',
      ['stage'],
      [0.1, 1, 5, 30, 60, 300, 900, 3600],
    );
    this.rounds = new PeriodicWorker(() => this.round(), logger, {
      what: 'refresh round',
      everyMs: env.RL_JOB_POLL_SECONDS * 1_000,
    });
  }

  onApplicationBootstrap(): void {
    if (this.env.RL_DRIVE_JOBS) this.rounds.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.rounds.stop();
    this.stages.close();
    await this.jobs.release(this.owner);
  }

  /** Looks for work now (a new job, a cancel request); one round at a time. Resolves when the round has ended. */
  async wake(): Promise<void> {
    if (this.env.RL_DRIVE_JOBS) await this.rounds.wake();
  }

  private async round(): Promise<void> {
    const job = await this.jobs.claim(this.owner, this.clock(), LEASE_MS);
    if (!job) return;
    // A long step (snapshot, gate) keeps the lease alive while it runs.
    const stopRenewing = every(LEASE_MS / 4, () => this.jobs.claim(this.owner, this.clock(), LEASE_MS));
    const timer = this.stageSeconds.startTimer({ stage: job.status });
    try {
      // A span per stage step, each its own trace, found by the job's id.
      await traced(
        `rl ${job.status}`,
        { attributes: { 'echoloop.rl.job_id': job.id, 'echoloop.rl.stage': job.status } },
        () => this.step(job),
      );
    } catch (error) {
      await this.handle(job, error);
    } finally {
      stopRenewing();
      timer();
    }
  }

  private async step(job: RlJobEntity): Promise<void> {
    if (job.cancelRequested && job.status !== 'training') {
      await this.stages.retire(job);
      return this.end(job, 'cancelled', 'cancelled: by request');
    }
    switch (job.status) {
      case 'queued':
        await this.jobs.transition(job.id, 'snapshotting', {}, job.status);
        return;
      case 'snapshotting': {
        const outcome = await this.stages.snapshot(job);
        if (!outcome.ok) {
          await this.jobs.update(job.id, { dataset: { ...outcome.details } });
          return this.end(job, 'skipped', outcome.reason);
        }
        await this.jobs.transition(job.id, 'training', { dataset: { ...outcome.snapshot } }, job.status);
        return;
      }
      case 'training':
        return this.train(job);
      case 'loading': {
        if (!this.stages.producesAdapter(job))
          return this.end(job, 'rendered', 'rendered: a config for a GPU cluster, no adapter to serve');
        const { checkpointId, serving } = await this.stages.serve(job);
        await this.jobs.transition(
          job.id,
          'gating',
          { checkpointId, output: { ...job.output, serving } },
          job.status,
        );
        return;
      }
      case 'gating': {
        const gate = await this.stages.gate(job);
        if (!gate.passed) {
          await this.jobs.update(job.id, { gate: { ...gate } });
          await this.stages.retire(job);
          return this.end(job, 'failed', `gate_failed: ${gate.reasons.join('; ')}`);
        }
        await this.jobs.transition(job.id, 'experimenting', { gate: { ...gate } }, job.status);
        return;
      }
      case 'experimenting': {
        if (!this.env.EXPERIMENT_ON_PASS) return this.end(job, 'succeeded', null);
        const { experimentId, note } = await this.stages.experiment(job);
        return this.end(job, 'succeeded', note, { experimentId });
      }
      default:
        return;
    }
  }

  private async train(job: RlJobEntity): Promise<void> {
    if (!job.externalId) {
      const externalId = await this.stages.submit(job);
      await this.jobs.update(job.id, { externalId });
      return;
    }
    const running = { ...job, externalId: job.externalId };
    if (job.cancelRequested) {
      if (await this.stages.stop(running))
        return this.end(job, 'cancelled', 'cancelled: by request, job stopped');
      return; // the runner is stopping it: the next round looks again
    }
    const progress = await this.stages.poll(running);
    if (!progress.done) {
      await this.jobs.update(job.id, { metrics: progress.metrics, logsTail: progress.logsTail });
      return;
    }
    const results = { metrics: progress.metrics, logsTail: progress.logsTail, output: progress.output };
    const selection = selectionOf(progress.output);
    if (selection && !selection.generalised) {
      // Training said it learnt nothing that holds on other users: nothing to serve, and that is an outcome.
      await this.jobs.update(job.id, results);
      return this.end(job, 'skipped', `not_generalised: ${selection.reason}`);
    }
    await this.jobs.transition(job.id, 'loading', results, job.status);
  }

  private async handle(job: RlJobEntity, error: unknown): Promise<void> {
    const waited = (this.clock().getTime() - job.updatedAt.getTime()) / 1_000;
    if (transient(error) && waited < this.env.RL_RETRY_SECONDS) {
      this.logger.warn(
        { jobId: job.id, stage: job.status, err: error },
        'a service is away; the step retries',
      );
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    const reason =
      error instanceof JobFailure
        ? error.reason
        : transient(error)
          ? `${job.status}_timeout: still failing after ${Math.round(waited)} s: ${message}`
          : `${job.status}_failed: ${message}`;
    this.logger.error({ jobId: job.id, stage: job.status, err: error }, 'refresh failed');
    // Whatever failed, production is left as it was: the candidate comes down.
    await this.stages
      .retire(job)
      .catch((cleanup: unknown) =>
        this.logger.error({ jobId: job.id, err: cleanup }, 'retiring the candidate failed'),
      );
    await this.end(job, 'failed', reason, error instanceof JobFailure ? { logsTail: error.logsTail } : {});
  }

  private async end(
    job: RlJobEntity,
    status: RlJobStatus,
    reason: string | null,
    patch: { experimentId?: string; logsTail?: string | undefined } = {},
  ): Promise<void> {
    const ended = await this.jobs.transition(job.id, status, { reason, ...patch });
    await this.stages
      .discardSnapshot(ended ?? job)
      .catch((error: unknown) =>
        this.logger.warn({ jobId: job.id, err: error }, 'snapshot files not removed'),
      );
    if (ended) {
      this.finished.inc({ status });
      this.logger.info({ jobId: job.id, status, reason }, 'refresh ended');
    }
  }
}
