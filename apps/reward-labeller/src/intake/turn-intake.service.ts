import { chatTurnCompletedV1 } from '@echoloop/contracts';
import { EventPublisher, every, KAFKA, KafkaLifecycle, MetricsService } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import type { Counter, Gauge } from 'prom-client';
import type { LabellerEnv } from '../env';
import { TurnLabeller } from '../labelling/turn-labeller.service';
import { LABELLER_ENV } from '../tokens';
import { BatchConsumer } from './batch-consumer';
import { ConsumerProgress } from '../labelling/consumer-progress';
import { isTransient } from './transient-errors';

/**
 * Takes completed turns off Kafka and labels them a batch at a time. Invalid events go to the dead-letter topic;
 * an outage of the database or of the judge endpoint holds the partition and retries, so nothing is lost or
 * labelled twice.
 */
@Injectable()
export class TurnIntakeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumer: BatchConsumer<typeof chatTurnCompletedV1>;
  private readonly received: Counter<'checkpoint'>;
  private readonly lag: Gauge<'topic' | 'partition'>;
  private stopLagPolls = (): void => undefined;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    @Inject(LABELLER_ENV) private readonly env: LabellerEnv,
    publisher: EventPublisher,
    metrics: MetricsService,
    labeller: TurnLabeller,
    private readonly progress: ConsumerProgress,
    private readonly lifecycle: KafkaLifecycle,
    logger: PinoLogger,
  ) {
    this.received = metrics.counter('labeller_turns_received_total', 'Valid completed turns received', [
      'checkpoint',
    ]);
    const lag = (this.lag = metrics.gauge(
      'labeller_consumer_lag_messages',
      'Messages behind the newest, per partition',
      ['topic', 'partition'],
    ));
    this.consumer = new BatchConsumer(
      kafka,
      publisher,
      {
        groupId: env.LABELLER_GROUP_ID,
        contract: chatTurnCompletedV1,
        handleBatch: async (events) => {
          await labeller.onTurns(events.map((e) => e.payload));
          const perCheckpoint = new Map<string, number>();
          for (const { payload } of events)
            perCheckpoint.set(payload.checkpointId, (perCheckpoint.get(payload.checkpointId) ?? 0) + 1);
          for (const [checkpoint, turns] of perCheckpoint) this.received.inc({ checkpoint }, turns);
        },
        // A new labeller group labels the whole retained history, not just what arrives after it joins.
        fromBeginning: true,
        isTransient,
        partitionsConcurrently: env.LABELLER_PARTITIONS_CONCURRENTLY,
        sessionTimeoutMs: env.LABELLER_SESSION_TIMEOUT_MS,
        onLag: ({ topic, partition, messages }) => {
          lag.set({ topic, partition: String(partition) }, messages);
          progress.record(partition, messages);
        },
      },
      logger.logger,
    );
  }

  onApplicationBootstrap(): void {
    void this.lifecycle.topicsReady.then(() => {
      this.stopLagPolls = every(this.env.LEAVE_SWEEP_MS, () => this.pollLag());
      return this.consumer.start();
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopLagPolls();
    await this.consumer.stop();
  }

  /**
   * The group's lag from its committed offsets: known even when no batch arrives (after a restart with nothing
   * new), and never below the truth mid-batch, since offsets are committed after handling.
   */
  private async pollLag(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const topic = chatTurnCompletedV1.topic;
      const [ends, [committed]] = await Promise.all([
        admin.fetchTopicOffsets(topic),
        admin.fetchOffsets({ groupId: this.env.LABELLER_GROUP_ID, topics: [topic] }),
      ]);
      for (const end of ends) {
        const done = committed?.partitions.find((p) => p.partition === end.partition)?.offset ?? '-1';
        const start = Number(done) >= 0 ? Number(done) : Number(end.low);
        const messages = Math.max(0, Number(end.high) - start);
        this.lag.set({ topic, partition: String(end.partition) }, messages);
        this.progress.record(end.partition, messages);
      }
    } finally {
      await admin.disconnect();
    }
  }
}
