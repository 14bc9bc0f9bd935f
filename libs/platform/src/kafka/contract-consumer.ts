import { deadLetterTopic, type Contract, type EventOf } from '@echoloop/contracts';
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { deadLetterMessage, type DeadLetterKind } from './dead-letter';
import { decodeEvent, EventDecodeError, headersToStrings } from './event-codec';
import type { EventPublisher } from './event-publisher';

/** Thrown by a handler for an event that will never succeed: it goes to the dead-letter topic at once. */
export class NonRetryableError extends Error {
  override readonly name = 'NonRetryableError';
}

export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: Record<string, string>;
  attempt: number;
}

export interface ContractConsumerOptions<C extends Contract> {
  groupId: string;
  contract: C;
  handle: (event: EventOf<C>, context: MessageContext) => Promise<void>;
  /** Attempts per message before it is dead-lettered (default 5). */
  maxAttempts?: number;
  /** Backoff between attempts: initial, doubled each time, capped (default 100 ms .. 5 s). */
  retryBackoffMs?: { initial: number; max: number };
  fromBeginning?: boolean;
}

type Outcome = { done: true } | { done: false; kind: DeadLetterKind; error: string; attempts: number };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Consumes one contract's topic with at-least-once delivery: every message is validated, handled with bounded
 * retries, or parked on `<topic>.dlq` with the error in its headers; its offset is committed only after that.
 * Handlers must therefore be idempotent.
 */
export class ContractConsumer<C extends Contract> {
  private readonly consumer: Consumer;
  private readonly maxAttempts: number;
  private readonly backoff: { initial: number; max: number };

  constructor(
    kafka: Kafka,
    private readonly deadLetters: EventPublisher,
    private readonly options: ContractConsumerOptions<C>,
    private readonly logger: Logger,
  ) {
    this.consumer = kafka.consumer({ groupId: options.groupId, allowAutoTopicCreation: false });
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoff = options.retryBackoffMs ?? { initial: 100, max: 5_000 };
  }

  async start(): Promise<void> {
    const { contract, fromBeginning = false } = this.options;
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: contract.topic, fromBeginning });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.processBatch(payload),
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  private async processBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) {
    let lastDone: string | undefined;
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) break;
      const outcome = await this.process(batch.topic, batch.partition, message, heartbeat);
      if (!outcome.done) {
        await this.deadLetters.send(deadLetterTopic(batch.topic), [
          deadLetterMessage(message, {
            ...outcome,
            topic: batch.topic,
            partition: batch.partition,
            groupId: this.options.groupId,
          }),
        ]);
        this.logger.warn(
          { topic: batch.topic, partition: batch.partition, offset: message.offset, kind: outcome.kind },
          `message dead-lettered: ${outcome.error}`,
        );
      }
      resolveOffset(message.offset);
      lastDone = message.offset;
      await heartbeat();
    }
    if (lastDone !== undefined) {
      const next = (BigInt(lastDone) + 1n).toString();
      await this.consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: next }]);
    }
  }

  private async process(
    topic: string,
    partition: number,
    message: KafkaMessage,
    heartbeat: () => Promise<void>,
  ): Promise<Outcome> {
    let event: EventOf<C>;
    try {
      event = decodeEvent(this.options.contract, message.value);
    } catch (error) {
      if (error instanceof EventDecodeError)
        return { done: false, kind: 'invalid', error: error.message, attempts: 1 };
      throw error;
    }
    const base = {
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? null,
      headers: headersToStrings(message.headers),
    };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handle(event, { ...base, attempt });
        return { done: true };
      } catch (error) {
        const permanent = error instanceof NonRetryableError;
        if (permanent || attempt >= this.maxAttempts) {
          return { done: false, kind: 'failed', error: messageOf(error), attempts: attempt };
        }
        this.logger.warn(
          { topic, offset: message.offset, attempt },
          `handler failed, retrying: ${messageOf(error)}`,
        );
        await sleep(Math.min(this.backoff.initial * 2 ** (attempt - 1), this.backoff.max));
        await heartbeat();
      }
    }
  }
}
