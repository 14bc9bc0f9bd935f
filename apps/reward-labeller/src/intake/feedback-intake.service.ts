import { type Contract, chatFeedbackV1, chatFeedbackV2, type EventOf } from '@echoloop/contracts';
import type { TurnSignals } from '@echoloop/persistence';
import { ContractConsumer, EventPublisher, KAFKA, KafkaLifecycle } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import type { LabellerEnv } from '../env';
import { editSignals, feedbackSignals, legacyRatingSignals } from '../labelling/signals';
import { TurnLabeller } from '../labelling/turn-labeller.service';
import { LABELLER_ENV } from '../tokens';
import { isTransient } from './transient-errors';

/**
 * Ratings, swipe choices and edits become signals on the turns they concern, whenever they come (TurnLabeller.onFeedback:
 * held until the turn arrives, revising a finished turn). chat.feedback.v2 is what the gateway writes; v1 is still
 * read so that events written before the change are not lost.
 */
@Injectable()
export class FeedbackIntakeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumers: ContractConsumer<Contract>[];

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    @Inject(LABELLER_ENV) env: LabellerEnv,
    publisher: EventPublisher,
    private readonly labeller: TurnLabeller,
    private readonly lifecycle: KafkaLifecycle,
    logger: PinoLogger,
  ) {
    const consumer = <C extends Contract>(
      contract: C,
      groupSuffix: string,
      handle: (event: EventOf<C>) => Promise<void>,
    ) =>
      new ContractConsumer(
        kafka,
        publisher,
        {
          groupId: `${env.LABELLER_GROUP_ID}.${groupSuffix}`,
          contract,
          handle,
          fromBeginning: true,
          isTransient,
        },
        logger.logger,
      ) as unknown as ContractConsumer<Contract>;
    this.consumers = [
      consumer(chatFeedbackV1, 'feedback', ({ payload }) =>
        payload.kind === 'rating'
          ? this.apply(payload.turnId, legacyRatingSignals(payload.rating))
          : this.swipe(payload),
      ),
      consumer(chatFeedbackV2, 'feedback-v2', ({ payload }) => {
        switch (payload.kind) {
          case 'rating':
            return this.apply(payload.turnId, feedbackSignals(payload));
          case 'swipe':
            return this.swipe(payload);
          case 'edit':
            return this.apply(payload.turnId, editSignals(payload));
        }
      }),
    ];
  }

  onApplicationBootstrap(): void {
    void this.lifecycle.topicsReady.then(() => Promise.all(this.consumers.map((c) => c.start())));
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.stop()));
  }

  private async apply(turnId: string, signals: TurnSignals): Promise<void> {
    if (Object.keys(signals).length > 0) await this.labeller.onFeedback(turnId, signals);
  }

  private async swipe(choice: { selectedTurnId: string; rejectedTurnIds: string[] }): Promise<void> {
    await this.apply(choice.selectedTurnId, { kept: true });
    for (const rejected of choice.rejectedTurnIds) await this.apply(rejected, { kept: false });
  }
}
