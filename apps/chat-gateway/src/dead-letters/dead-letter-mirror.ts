import { deadLetterTopic, TOPICS } from '@echoloop/contracts';
import { KAFKA, KafkaLifecycle, MetricsService, runBatches } from '@echoloop/platform';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import type { Counter } from 'prom-client';
import { GATEWAY_ENV, type GatewayEnv } from '../env';
import { DeadLettersRepository } from './dead-letters.repository';
import { parkedLetter } from './parked-letter';

/** Every topic's dead-letter topic: the gateway creates them all (PlatformModule) and mirrors them all. */
export const DEAD_LETTER_TOPICS = Object.values(TOPICS).map(deadLetterTopic);

/**
 * Copies every message parked on a dead-letter topic into the dead_letters table, each once: its offset is
 * committed only after the row is written, and a batch read again adds nothing. Off with DEAD_LETTERS_MIRROR=false.
 */
@Injectable()
export class DeadLetterMirror implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly consumer?: Consumer;
  private readonly mirrored: Counter<'topic'>;

  constructor(
    @Inject(KAFKA) kafka: Kafka,
    @Inject(GATEWAY_ENV) env: GatewayEnv,
    private readonly letters: DeadLettersRepository,
    private readonly lifecycle: KafkaLifecycle,
    metrics: MetricsService,
    private readonly logger: PinoLogger,
  ) {
    this.mirrored = metrics.counter(
      'dead_letters_mirrored_total',
      'Messages parked on a dead-letter topic, by the topic they were meant for',
      ['topic'],
    );
    if (env.DEAD_LETTERS_MIRROR) {
      this.consumer = kafka.consumer({ groupId: env.DEAD_LETTERS_GROUP_ID, allowAutoTopicCreation: false });
    }
  }

  onApplicationBootstrap(): void {
    const consumer = this.consumer;
    if (!consumer) return;
    void this.lifecycle.topicsReady
      .then(() =>
        runBatches(consumer, { topic: DEAD_LETTER_TOPICS, fromBeginning: true }, (batch) =>
          this.mirror(batch),
        ),
      )
      .catch((error: unknown) => this.logger.error({ err: error }, 'dead-letter mirror stopped'));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.consumer?.disconnect();
  }

  private async mirror({ batch, resolveOffset, heartbeat }: EachBatchPayload): Promise<void> {
    const last = batch.messages.at(-1);
    if (!last || !this.consumer) return;
    const added = await this.letters.record(
      batch.messages.map((message) => parkedLetter(batch.topic, batch.partition, message)),
    );
    for (const letter of added) this.mirrored.inc({ topic: letter.originalTopic });
    resolveOffset(last.offset);
    await this.consumer.commitOffsets([
      { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
    ]);
    await heartbeat();
  }
}
