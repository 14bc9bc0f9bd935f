import { PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { LabellerEnv } from '../env';
import { ConsumerProgress } from './consumer-progress';
import { LABELLER_ENV } from '../tokens';
import { FeedbackStore } from './feedback-store';
import { LabelStore } from './label-store';
import { TurnLabeller } from './turn-labeller.service';

const BATCH = 200;

/**
 * Finishes the turns the user never answered, once LEAVE_AFTER_MS have passed and the labeller has caught up
 * with the turn stream (so the next message is not just waiting in Kafka): the leaving is their signal. Also drops
 * feedback held for turns that never came.
 */
@Injectable()
export class LeaveSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly rounds: PeriodicWorker;

  constructor(
    @Inject(LABELLER_ENV) private readonly env: LabellerEnv,
    private readonly store: LabelStore,
    private readonly feedback: FeedbackStore,
    private readonly labeller: TurnLabeller,
    private readonly progress: ConsumerProgress,
    logger: PinoLogger,
  ) {
    this.rounds = new PeriodicWorker(() => this.sweep(), logger, {
      what: 'leave sweep',
      everyMs: env.LEAVE_SWEEP_MS,
    });
  }

  onApplicationBootstrap(): void {
    this.rounds.start({ now: false });
  }

  onApplicationShutdown(): Promise<void> {
    return this.rounds.stop();
  }

  /** One round: every abandoned turn found (in batches), oldest first; then feedback held for too long. */
  async sweep(): Promise<void> {
    if (!this.progress.caughtUp()) return;
    await this.feedback.dropPendingFeedback(new Date(Date.now() - this.env.PENDING_FEEDBACK_TTL_MS));
    for (;;) {
      const cutoff = new Date(Date.now() - this.env.LEAVE_AFTER_MS);
      const turns = await this.store.abandoned(this.labeller.version, cutoff, BATCH);
      const finished = await this.labeller.onLeft(turns);
      // A full batch of turns still being judged would come back unchanged: wait for the next round.
      if (turns.length < BATCH || finished === 0) return;
    }
  }
}
