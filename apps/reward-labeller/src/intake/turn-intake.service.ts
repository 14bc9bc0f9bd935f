import { chatTurnCompletedV1 } from '@echoloop/contracts';
import { ContractConsumer, EventPublisher, KAFKA, KafkaLifecycle, MetricsService } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import type { LabellerEnv } from '../env';
import { TurnLabeller } from '../labelling/turn-labeller.service';
import { LABELLER_ENV } from '../tokens';
import { ConsumerProgress } from './consumer-progress';
import { isTransient } from './transient-errors';

/**
 * Takes completed turns off Kafka and labels them. Invalid events go to the dead-letter topic; an outage of the
 * database or of the judge endpoint holds the partition and retries, so nothing is lost or labelled twice.
 */
@Injectable()
export class TurnIntakeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumer: ContractConsumer<typeof chatTurnCompletedV1>;
  private readonly received: Counter<'checkpoint'>;

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    @Inject(LABELLER_ENV) env: LabellerEnv,
    publisher: EventPublisher,
    metrics: MetricsService,
    labeller: TurnLabeller,
    progress: ConsumerProgress,
    private readonly lifecycle: KafkaLifecycle,
    logger: PinoLogger,
  ) {
    this.received = metrics.counter('labeller_turns_received_total', 'Valid completed turns received', [
      'checkpoint',
    ]);
    const lag = metrics.gauge('labeller_consumer_lag_messages', 'Messages behind the newest, per partition', [
      'topic',
      'partition',
    ]);
    this.consumer = new ContractConsumer(
      kafka,
      publisher,
      {
        groupId: env.LABELLER_GROUP_ID,
        contract: chatTurnCompletedV1,
        handle: async (event) => {
          this.received.inc({ checkpoint: event.payload.checkpointId });
          await labeller.onTurn(event.payload);
        },
        // A new labeller group labels the whole retained history, not just what arrives after it joins.
        fromBeginning: true,
        isTransient,
        partitionsConcurrently: env.LABELLER_PARTITIONS_CONCURRENTLY,
        onLag: ({ topic, partition, messages }) => {
          lag.set({ topic, partition: String(partition) }, messages);
          progress.record(partition, messages);
        },
      },
      logger.logger,
    );
  }

  onApplicationBootstrap(): void {
    void this.lifecycle.topicsReady.then(() => this.consumer.start());
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer.stop();
  }
}
