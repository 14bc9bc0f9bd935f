import { MetricsService, PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import type { LabellerEnv } from '../env';
import { LABELLER_ENV } from '../tokens';
import { ComponentJudges } from './component-judges';
import { FeedbackStore } from './feedback-store';
import type { LabelDraft } from './label-draft';
import { judgedReply } from './label-rules';
import { type DueRetry, LabelRetriesRepository, type RetryPolicy } from './label-retries.repository';
import { referenceFor, referenceNote } from './references';
import { TurnLabeller } from './turn-labeller.service';

const BATCH = 50;

/**
 * Failed labels get a few more chances: a judge that was down or answered unreadably is asked again, backing off,
 * up to LABEL_RETRY_MAX_ATTEMPTS rounds in all. A retry that labels replaces the failed label through the feedback
 * path (under the turn's lock: the composite, the experiment aggregates and the announcement are revised), so
 * a turn once partly failed ends labelled; one that fails again waits for its next round, or stays failed.
 */
@Injectable()
export class LabelRetrier implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly rounds: PeriodicWorker;
  private readonly policy: RetryPolicy;
  private readonly retries: Counter<'component' | 'outcome'>;
  private readonly labels: Counter<'component' | 'status'>;

  constructor(
    @Inject(LABELLER_ENV) env: LabellerEnv,
    private readonly due: LabelRetriesRepository,
    private readonly judges: ComponentJudges,
    private readonly feedback: FeedbackStore,
    private readonly labeller: TurnLabeller,
    metrics: MetricsService,
    logger: PinoLogger,
  ) {
    this.policy = { maxAttempts: env.LABEL_RETRY_MAX_ATTEMPTS, baseMs: env.LABEL_RETRY_BASE_MS };
    this.rounds = new PeriodicWorker(() => this.sweep(), logger, {
      what: 'failed-label retry',
      everyMs: env.LABEL_RETRY_SWEEP_MS,
    });
    this.retries = metrics.counter(
      'labeller_label_retries_total',
      'Failed labels judged again, by component and outcome (labelled, failed)',
      ['component', 'outcome'],
    );
    this.labels = metrics.counter('labeller_labels_total', 'Labels stored, by component and status', [
      'component',
      'status',
    ]);
  }

  onApplicationBootstrap(): void {
    if (this.policy.maxAttempts > 1) this.rounds.start({ now: false });
  }

  onApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round: every due retry, a batch at a time, until none is due. */
  async sweep(): Promise<void> {
    for (;;) {
      const due = await this.due.due(this.labeller.version, this.policy, BATCH);
      for (const retry of due) await this.retry(retry);
      if (due.length < BATCH) return;
    }
  }

  private async retry(retry: DueRetry): Promise<void> {
    const { version, config } = this.labeller;
    const draft = await this.judge(retry);
    if (draft.status !== 'labelled') {
      await this.due.failedAgain(
        retry.turnId,
        retry.component,
        version,
        retry.attempts,
        draft.error ?? 'failed',
      );
      this.retries.inc({ component: retry.component, outcome: 'failed' });
      return;
    }
    const replaced = await this.feedback.replaceLabel(
      retry.turnId,
      draft,
      version,
      config,
      (stored) => stored?.status === 'failed',
    );
    if (!replaced) return;
    await this.due.succeeded(retry.turnId, retry.component, version);
    this.retries.inc({ component: retry.component, outcome: 'labelled' });
    this.labels.inc({ component: retry.component, status: 'labelled' });
  }

  /** The component judged as on arrival; empathy against the reference the user has given since, if any. */
  private async judge({ turnId, component, payload }: DueRetry): Promise<LabelDraft> {
    const { version, config } = this.labeller;
    if (component === 'humanlike') return this.judges.humanlike(judgedReply(payload), config);
    const alternatives = await this.feedback.alternativesOf(turnId, version);
    const own = alternatives.find((a) => a.turnId === turnId);
    const reference = own ? referenceFor(own, alternatives) : null;
    const judged = await this.judges.empathy(judgedReply(payload), reference?.text ?? null, config);
    return reference
      ? { ...judged, details: { ...judged.details, reference: referenceNote(reference) } }
      : judged;
  }
}
