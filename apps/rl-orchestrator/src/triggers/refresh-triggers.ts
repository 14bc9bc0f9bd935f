import type { RlTrigger } from '@echoloop/vocabulary';
import type { RlJobEntity } from '@echoloop/persistence';
import { PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Cron } from 'croner';
import { PinoLogger } from 'nestjs-pino';
import type { OrchestratorEnv } from '../env';
import { RlJobsRepository } from '../jobs/rl-jobs.repository';
import { RefreshDriver } from '../pipeline/refresh-driver';
import type { Hyperparameters, TemplateName } from '../runners/job-templates';
import { ORCHESTRATOR_ENV } from '../tokens';
import { NewDataCounter } from './new-data.counter';

export type TriggerOutcome =
  | { started: true; job: RlJobEntity }
  | { started: false; active: RlJobEntity | null };

/** New data since the last refresh was asked for. */
export interface NewData {
  since: string | null;
  turns: number;
  /** Counted only when a pairs threshold is set (it streams every new alternative). */
  pairs: number | null;
}

/**
 * The three ways a refresh starts: a cron schedule, a threshold of new labelled data, and a request by hand. All go
 * through `request`, where the database lets one refresh be active at a time across replicas; every decision is
 * recorded with its reason.
 */
@Injectable()
export class RefreshTriggers implements OnApplicationBootstrap, OnApplicationShutdown {
  private schedule: Cron | undefined;
  private readonly thresholdChecks: PeriodicWorker;

  constructor(
    private readonly jobs: RlJobsRepository,
    private readonly driver: RefreshDriver,
    private readonly counter: NewDataCounter,
    @Inject(ORCHESTRATOR_ENV) private readonly env: OrchestratorEnv,
    private readonly logger: PinoLogger,
  ) {
    this.thresholdChecks = new PeriodicWorker(() => this.thresholdRound(), logger, {
      what: 'threshold check',
      everyMs: env.RL_THRESHOLD_POLL_SECONDS * 1_000,
    });
  }

  onApplicationBootstrap(): void {
    if (this.env.RL_SCHEDULE) {
      this.schedule = new Cron(this.env.RL_SCHEDULE, { protect: true }, () =>
        this.request('schedule', { reason: `schedule ${this.env.RL_SCHEDULE}` }).then(() => undefined),
      );
    }
    if (this.env.RL_THRESHOLD_TURNS > 0 || this.env.RL_THRESHOLD_PAIRS > 0) {
      this.thresholdChecks.start();
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.schedule?.stop();
    await this.thresholdChecks.stop();
  }

  thresholds(): { turns: number; pairs: number } {
    return { turns: this.env.RL_THRESHOLD_TURNS, pairs: this.env.RL_THRESHOLD_PAIRS };
  }

  nextScheduledAt(): Date | null {
    return this.schedule?.nextRun() ?? null;
  }

  /** Starts a refresh unless one is active; records the decision either way. */
  async request(
    trigger: RlTrigger,
    options: {
      reason: string;
      template?: TemplateName;
      hyperparameters?: Hyperparameters;
      requestedBy?: string | null;
      details?: Record<string, unknown>;
    },
  ): Promise<TriggerOutcome> {
    const job = await this.jobs.create({
      trigger,
      template: options.template ?? this.env.RL_TEMPLATE,
      runner: this.env.RL_RUNNER,
      hyperparameters: options.hyperparameters ?? {},
      requestedBy: options.requestedBy ?? null,
    });
    const details = options.details ?? {};
    if (!job) {
      const active = await this.jobs.active();
      this.logger.info({ trigger, activeJobId: active?.id }, 'refresh not started: one is running');
      // A request by hand gets its answer (409) and changes nothing; automatic triggers leave a record.
      if (trigger === 'manual') return { started: false, active };
      await this.jobs.recordDecision({
        trigger,
        decision: 'skipped',
        reason: `refresh_running: job ${active?.id ?? '?'} is ${active?.status ?? 'active'}`,
        details: { ...details, why: options.reason },
        jobId: active?.id ?? null,
      });
      return { started: false, active };
    }
    await this.jobs.recordDecision({
      trigger,
      decision: 'started',
      reason: options.reason,
      details,
      jobId: job.id,
    });
    this.logger.info({ trigger, jobId: job.id, reason: options.reason }, 'refresh started');
    void this.driver.wake();
    return { started: true, job };
  }

  /** Labelled turns and preference pairs since the last refresh was asked for, by the export's own rules. */
  async newData(): Promise<NewData> {
    const since = await this.jobs.lastRequestedAt();
    const [turns, pairs] = await Promise.all([
      this.counter.turns(since),
      this.env.RL_THRESHOLD_PAIRS > 0 ? this.counter.pairs(since) : Promise.resolve(null),
    ]);
    return { since: since?.toISOString() ?? null, turns, pairs };
  }

  /** One threshold check (never two at once). */
  checkThresholds(): void {
    void this.thresholdChecks.wake();
  }

  private async thresholdRound(): Promise<void> {
    if (await this.jobs.active()) return;
    const data = await this.newData();
    const { RL_THRESHOLD_TURNS: turns, RL_THRESHOLD_PAIRS: pairs } = this.env;
    const met = [
      turns > 0 && data.turns >= turns ? `${data.turns} new labelled turns (threshold ${turns})` : null,
      pairs > 0 && data.pairs !== null && data.pairs >= pairs
        ? `${data.pairs} new preference pairs (threshold ${pairs})`
        : null,
    ].filter((reason): reason is string => reason !== null);
    if (met.length === 0) return;
    await this.request('threshold', { reason: met.join('; '), details: { ...data } });
  }
}
