import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { Kafka } from 'kafkajs';
import { PinoLogger } from 'nestjs-pino';
import { EventPublisher } from './event-publisher';
import { KafkaHealthIndicator } from './kafka.health';
import { KAFKA, KAFKA_TOPICS } from './kafka.tokens';
import { ensureTopics, type TopicSpec } from './topic-admin';

const RETRY_MS = 2_000;

/**
 * Creates the app's topics once Kafka answers. It never blocks start-up: an app must come up (and, for the
 * gateway, keep taking chats into its outbox) while Kafka is away; readiness reports Kafka as down meanwhile.
 */
@Injectable()
export class KafkaLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  private stopped = false;
  private timer?: NodeJS.Timeout;
  readonly topicsReady: Promise<void>;
  private resolveTopics!: () => void;

  constructor(
    @Inject(KAFKA) private readonly kafka: Kafka,
    @Inject(KAFKA_TOPICS) private readonly topics: readonly TopicSpec[],
    private readonly publisher: EventPublisher,
    private readonly health: KafkaHealthIndicator,
    private readonly logger: PinoLogger,
  ) {
    this.topicsReady = new Promise((resolve) => (this.resolveTopics = resolve));
  }

  onApplicationBootstrap(): void {
    void this.createTopics();
  }

  private async createTopics(): Promise<void> {
    try {
      await ensureTopics(this.kafka, this.topics);
      this.resolveTopics();
    } catch (error) {
      if (this.stopped) return;
      this.logger.warn({ err: error }, `Kafka topics not created yet, retrying in ${RETRY_MS} ms`);
      this.timer = setTimeout(() => void this.createTopics(), RETRY_MS);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await Promise.allSettled([this.publisher.disconnect(), this.health.close()]);
  }
}
