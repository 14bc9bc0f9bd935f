import { chatFeedbackV1, type EventOf } from '@echoloop/contracts';
import { ContractConsumer, EventPublisher, KAFKA, KafkaLifecycle } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import type { LabellerEnv } from '../env';
import { LabelStore } from '../labelling/label-store';
import { LABELLER_ENV } from '../tokens';
import { isTransient } from './transient-errors';

/** Ratings and swipe choices become implicit signals on the turns they concern (used when a turn finishes). */
@Injectable()
export class FeedbackIntakeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumer: ContractConsumer<typeof chatFeedbackV1>;

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    @Inject(LABELLER_ENV) env: LabellerEnv,
    publisher: EventPublisher,
    private readonly store: LabelStore,
    private readonly lifecycle: KafkaLifecycle,
    logger: PinoLogger,
  ) {
    this.consumer = new ContractConsumer(
      kafka,
      publisher,
      {
        groupId: `${env.LABELLER_GROUP_ID}.feedback`,
        contract: chatFeedbackV1,
        handle: (event) => this.receive(event),
        fromBeginning: true,
        isTransient,
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

  private async receive({ payload }: EventOf<typeof chatFeedbackV1>): Promise<void> {
    if (payload.kind === 'rating') {
      if (payload.rating !== null) await this.store.addSignals(payload.turnId, { rating: payload.rating });
      return;
    }
    await this.store.addSignals(payload.selectedTurnId, { kept: true });
    for (const rejected of payload.rejectedTurnIds) await this.store.addSignals(rejected, { kept: false });
  }
}
