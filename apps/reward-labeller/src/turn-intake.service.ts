import { chatTurnCompletedV1, type EventOf } from '@echoloop/contracts';
import { ContractConsumer, EventPublisher, KAFKA, KafkaLifecycle, MetricsService } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Counter } from 'prom-client';
import type { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import { LABELLER_ENV } from './tokens';
import type { LabellerEnv } from './env';

/**
 * Takes completed turns off Kafka (validated, retried, dead-lettered when hopeless). Scoring them with the
 * reward models is the labeller's next step; for now each valid turn is counted and logged.
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
    private readonly lifecycle: KafkaLifecycle,
    private readonly logger: PinoLogger,
  ) {
    this.received = metrics.counter('labeller_turns_received_total', 'Valid completed turns received', [
      'checkpoint',
    ]);
    this.consumer = new ContractConsumer(
      kafka,
      publisher,
      {
        groupId: env.LABELLER_GROUP_ID,
        contract: chatTurnCompletedV1,
        handle: (event) => this.receive(event),
        // A new labeller group labels the whole retained history, not just what arrives after it joins.
        fromBeginning: true,
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

  private async receive(event: EventOf<typeof chatTurnCompletedV1>): Promise<void> {
    this.received.inc({ checkpoint: event.payload.checkpointId });
    this.logger.debug(
      { turnId: event.payload.turnId, conversationId: event.payload.conversationId },
      'turn received',
    );
  }
}
