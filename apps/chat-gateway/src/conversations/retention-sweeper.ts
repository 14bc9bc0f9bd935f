import { CLOCK, type Clock, MetricsService, PeriodicWorker } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import type { Counter, Histogram } from 'prom-client';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { ConversationsRepository } from './conversations.repository';

const BATCH = 500;
const DAY_MS = 86_400_000;

/**
 * Retention: conversations not active for CONVERSATION_TTL_DAYS are deleted with their messages, reward turns and
 * labels (by cascade), oldest first, in batches of 500 through the `updated_at` index, so no sweep holds locks for
 * long. What it deleted and how long each batch took are metrics (`retention_*`).
 */
@Injectable()
export class RetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly worker: PeriodicWorker<number>;
  private readonly deleted: Counter;
  private readonly batchSeconds: Histogram;

  constructor(
    private readonly conversations: ConversationsRepository,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
    @Inject(CLOCK) private readonly clock: Clock,
    logger: PinoLogger,
    metrics: MetricsService,
  ) {
    this.deleted = metrics.counter(
      'retention_conversations_deleted_total',
      'Conversations deleted by retention',
    );
    this.batchSeconds = metrics.histogram('retention_batch_seconds', 'Time of one retention delete batch');
    this.worker = new PeriodicWorker(() => this.deleteExpired(), logger, {
      what: 'retention sweep',
      everyMs: env.RETENTION_SWEEP_MS,
    });
  }

  onApplicationBootstrap(): void {
    if (this.env.CONVERSATION_TTL_DAYS !== undefined) this.worker.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.worker.stop();
  }

  /** One sweep: batches until nothing is past the TTL; returns how many conversations it deleted. */
  async sweep(): Promise<number> {
    return (await this.worker.wake()) ?? 0;
  }

  private async deleteExpired(): Promise<number> {
    const ttl = this.env.CONVERSATION_TTL_DAYS;
    if (ttl === undefined) return 0;
    const cutoff = new Date(this.clock().getTime() - ttl * DAY_MS);
    let total = 0;
    for (;;) {
      const end = this.batchSeconds.startTimer();
      const count = await this.conversations.deleteInactiveBefore(cutoff, BATCH);
      end();
      total += count;
      this.deleted.inc(count);
      if (count < BATCH) return total;
    }
  }
}
