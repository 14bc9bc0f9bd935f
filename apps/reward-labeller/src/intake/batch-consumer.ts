import { deadLetterTopic, type Contract, type EventOf } from '@echoloop/contracts';
import {
  type DeadLetterKind,
  deadLetterMessage,
  decodeEvent,
  EventDecodeError,
  type EventPublisher,
  type PartitionLag,
  runBatches,
} from '@echoloop/platform';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';

export interface BatchConsumerOptions<C extends Contract> {
  groupId: string;
  contract: C;
  /** Handles a batch's valid events together, in offset order; must be idempotent (a batch may come again). */
  handleBatch: (events: EventOf<C>[]) => Promise<void>;
  /** Errors of the infrastructure: the batch is retried until it goes through, never dead-lettered. */
  isTransient: (error: unknown) => boolean;
  fromBeginning?: boolean;
  /** Attempts per message, once a batch failed and is handled message by message (default 5). */
  maxAttempts?: number;
  retryBackoffMs?: { initial: number; max: number };
  partitionsConcurrently?: number;
  sessionTimeoutMs?: number;
  onLag?: (lag: PartitionLag) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const HEARTBEAT_MS = 1_000;

/**
 * ContractConsumer's guarantees for a handler that takes a whole batch: invalid messages go to `<topic>.dlq` at
 * once; the valid ones are handled together, retried while the failure is transient; a batch that fails for
 * another reason is handled again message by message, so that only the poison message is dead-lettered (after
 * `maxAttempts`) and the others go through. The offset is committed only after all of it.
 */
export class BatchConsumer<C extends Contract> {
  private readonly consumer: Consumer;
  private readonly maxAttempts: number;
  private readonly backoff: { initial: number; max: number };

  constructor(
    kafka: Kafka,
    private readonly deadLetters: EventPublisher,
    private readonly options: BatchConsumerOptions<C>,
    private readonly logger: Logger,
  ) {
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
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

  /** Exposed for tests: one fetched batch, from decoding to the commit. */
  async processBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> {
    const last = batch.messages.at(-1);
    if (!last || !isRunning() || isStale()) return;
    const beat = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
    try {
      const valid: { message: KafkaMessage; event: EventOf<C> }[] = [];
      for (const message of batch.messages) {
        try {
          valid.push({ message, event: decodeEvent(this.options.contract, message.value) });
        } catch (error) {
          if (!(error instanceof EventDecodeError)) throw error;
          await this.deadLetter(batch.topic, batch.partition, message, 'invalid', error.message, 1);
        }
      }
      if (
        valid.length > 0 &&
        !(await this.handleAll(
          valid.map((v) => v.event),
          isRunning,
        ))
      ) {
        for (const { message, event } of valid) {
          if (!isRunning() || isStale()) return;
          await this.handleOne(batch.topic, batch.partition, message, event, isRunning);
        }
      }
    } finally {
      clearInterval(beat);
    }
    if (!isRunning() || isStale()) return;
    resolveOffset(last.offset);
    await this.consumer.commitOffsets([
      { topic: batch.topic, partition: batch.partition, offset: (BigInt(last.offset) + 1n).toString() },
    ]);
  }

  /** The whole batch, retried while the failure is transient; false when it failed for another reason. */
  private async handleAll(events: EventOf<C>[], isRunning: () => boolean): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handleBatch(events);
        return true;
      } catch (error) {
        if (!this.options.isTransient(error)) {
          this.logger.warn(
            { events: events.length },
            `batch failed, handling it message by message: ${messageOf(error)}`,
          );
          return false;
        }
        if (!isRunning()) throw error; // shutting down: the batch stays uncommitted for the next owner
        this.logger.warn({ attempt }, `batch failed transiently, retrying: ${messageOf(error)}`);
        await sleep(this.delay(attempt));
      }
    }
  }

  /** One event on its own, with bounded attempts (transient failures not counted), else dead-lettered. */
  private async handleOne(
    topic: string,
    partition: number,
    message: KafkaMessage,
    event: EventOf<C>,
    isRunning: () => boolean,
  ): Promise<void> {
    let counted = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handleBatch([event]);
        return;
      } catch (error) {
        const transient = this.options.isTransient(error);
        if (!transient) counted += 1;
        if (counted >= this.maxAttempts)
          return this.deadLetter(topic, partition, message, 'failed', messageOf(error), attempt);
        if (transient && !isRunning()) throw error;
        this.logger.warn(
          { topic, offset: message.offset, attempt, transient },
          `handler failed, retrying: ${messageOf(error)}`,
        );
        await sleep(this.delay(attempt));
      }
    }
  }

  private delay(attempt: number): number {
    return Math.min(this.backoff.initial * 2 ** (attempt - 1), this.backoff.max);
  }

  private async deadLetter(
    topic: string,
    partition: number,
    message: KafkaMessage,
    kind: DeadLetterKind,
    error: string,
    attempts: number,
  ): Promise<void> {
    await this.deadLetters.send(deadLetterTopic(topic), [
      deadLetterMessage(message, { kind, error, attempts, topic, partition, groupId: this.options.groupId }),
    ]);
    this.logger.warn({ topic, partition, offset: message.offset, kind }, `message dead-lettered: ${error}`);
  }
}
