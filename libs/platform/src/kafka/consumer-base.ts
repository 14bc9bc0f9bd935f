import { deadLetterTopic, type Contract } from '@echoloop/contracts';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { type PartitionLag, runBatches } from './batch-run';
import { deadLetterMessage, type DeadLetterKind } from './dead-letter';
import type { EventPublisher } from './event-publisher';
import { backoffDelay } from '../scheduling/backoff';

/** What every contract consumer is configured with, whatever it hands its handler (one event or a batch). */
export interface ConsumerBaseOptions<C extends Contract> {
  groupId: string;
  contract: C;
  /** Attempts per message before it is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Backoff between attempts: initial, doubled each time, capped (default 100 ms .. 5 s). */
  retryBackoffMs?: { initial: number; max: number };
  fromBeginning?: boolean;
  /**
   * How long the group waits for a silent member before handing its partitions to others (default 30 s): after
   * a crash, its partitions stand still this long.
   */
  sessionTimeoutMs?: number;
  /** How long a fetch waits for new messages (default 5 s); stopping waits for the fetch in flight. */
  maxWaitTimeMs?: number;
  /** Partitions handled in parallel (default 1); order holds within each. */
  partitionsConcurrently?: number;
  /** Called when a batch starts and ends with the partition's lag (messages not yet handled). */
  onLag?: (lag: PartitionLag) => void;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
/** What a consumer span says of its message's topic (OpenTelemetry's messaging attributes). */
export const consumerAttributes = (topic: string) => ({
  'messaging.system': 'kafka',
  'messaging.destination.name': topic,
  'messaging.operation.type': 'process',
});

/**
 * The part every contract consumer shares: the group member, batch by batch with manual commits, the backoff, and
 * parking a message on `<topic>.dlq` with the error in its headers. Subclasses decide how a batch is handled.
 */
export abstract class ContractConsumerBase<C extends Contract, O extends ConsumerBaseOptions<C>> {
  protected readonly consumer: Consumer;
  protected readonly maxAttempts: number;
  private readonly backoff: { initial: number; max: number };

  constructor(
    kafka: Kafka,
    private readonly deadLetters: EventPublisher,
    protected readonly options: O,
    protected readonly logger: Logger,
  ) {
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      ...(options.maxWaitTimeMs !== undefined && { maxWaitTimeInMs: options.maxWaitTimeMs }),
      ...(options.sessionTimeoutMs && {
        sessionTimeout: options.sessionTimeoutMs,
        heartbeatInterval: Math.max(500, Math.floor(options.sessionTimeoutMs / 4)),
      }),
    });
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoff = options.retryBackoffMs ?? { initial: 100, max: 5_000 };
  }

  async start(): Promise<void> {
    const { contract, fromBeginning, partitionsConcurrently, onLag } = this.options;
    await runBatches(
      this.consumer,
      {
        topic: contract.topic,
        ...(fromBeginning !== undefined && { fromBeginning }),
        ...(partitionsConcurrently !== undefined && { partitionsConcurrently }),
        ...(onLag && { onLag }),
      },
      (payload) => this.processBatch(payload),
    );
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  protected abstract processBatch(payload: EachBatchPayload): Promise<void>;

  /** The wait before attempt `attempt + 1`. */
  protected delay(attempt: number): number {
    return backoffDelay(attempt, { initialMs: this.backoff.initial, maxMs: this.backoff.max });
  }

  protected async commit(topic: string, partition: number, lastDone: string): Promise<void> {
    const next = (BigInt(lastDone) + 1n).toString();
    await this.consumer.commitOffsets([{ topic, partition, offset: next }]);
  }

  protected async deadLetter(
    topic: string,
    partition: number,
    message: KafkaMessage,
    failure: { kind: DeadLetterKind; error: string; attempts: number },
  ): Promise<void> {
    await this.deadLetters.send(deadLetterTopic(topic), [
      deadLetterMessage(message, { ...failure, topic, partition, groupId: this.options.groupId }),
    ]);
    this.logger.warn(
      { topic, partition, offset: message.offset, kind: failure.kind },
      `message dead-lettered: ${failure.error}`,
    );
  }
}
