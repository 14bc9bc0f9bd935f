import type { Contract, EventOf } from '@echoloop/contracts';
import { contextOf, SpanKind, traced } from '@echoloop/tracing';
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import {
  type ConsumerBaseOptions,
  ContractConsumerBase,
  consumerAttributes,
  messageOf,
  sleep,
} from './consumer-base';
import type { DeadLetterKind } from './dead-letter';
import { decodeEvent, EventDecodeError, headersToStrings } from './event-codec';

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

export interface ContractConsumerOptions<C extends Contract> extends ConsumerBaseOptions<C> {
  handle: (event: EventOf<C>, context: MessageContext) => Promise<void>;
  /**
   * Errors of the infrastructure rather than of the message (the database restarting, a judge endpoint down):
   * such a message is retried until it succeeds, at the capped backoff, and never dead-lettered; the partition
   * waits meanwhile, so its order holds.
   */
  isTransient?: (error: unknown) => boolean;
  /**
   * Messages of different keys within a batch handled in parallel, up to this many at once (default 1: one by
   * one). Order holds per key, which is what the contracts promise (a conversation's events share its key).
   */
  keyConcurrency?: number;
}

type Outcome = { done: true } | { done: false; kind: DeadLetterKind; error: string; attempts: number };

/**
 * Consumes one contract's topic with at-least-once delivery: every message is validated, handled with bounded
 * retries, or parked on `<topic>.dlq` with the error in its headers; its offset is committed only after that.
 * Handlers must therefore be idempotent.
 */
export class ContractConsumer<C extends Contract> extends ContractConsumerBase<
  C,
  ContractConsumerOptions<C>
> {
  protected async processBatch(payload: EachBatchPayload) {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const keyConcurrency = this.options.keyConcurrency ?? 1;
    if (keyConcurrency > 1) {
      await this.processByKey(payload, keyConcurrency);
      return;
    }
    let lastDone: string | undefined;
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) break;
      await this.handleOne(batch.topic, batch.partition, message, heartbeat, isRunning);
      resolveOffset(message.offset);
      lastDone = message.offset;
      await heartbeat();
    }
    if (lastDone !== undefined) await this.commit(batch.topic, batch.partition, lastDone);
  }

  /**
   * Messages of one key stay in order; different keys run side by side. The batch's offset is committed only
   * once all of it is handled, so a crash or a rebalance mid-batch replays it (handlers are idempotent).
   */
  private async processByKey(
    { batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload,
    keyConcurrency: number,
  ) {
    const groups = new Map<string, KafkaMessage[]>();
    for (const message of batch.messages) {
      const key = message.key?.toString('utf8') ?? `offset:${message.offset}`;
      groups.set(key, [...(groups.get(key) ?? []), message]);
    }
    const queue = [...groups.values()];
    let interrupted = false;
    const worker = async () => {
      for (let group = queue.shift(); group; group = queue.shift()) {
        for (const message of group) {
          if (!isRunning() || isStale()) {
            interrupted = true;
            return;
          }
          await this.handleOne(batch.topic, batch.partition, message, heartbeat, isRunning);
          await heartbeat();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(keyConcurrency, queue.length) }, worker));
    const last = batch.messages.at(-1);
    if (interrupted || !last) return;
    resolveOffset(last.offset);
    await this.commit(batch.topic, batch.partition, last.offset);
  }

  /** Handles one message, or parks it on the dead-letter topic when it can never be handled. */
  private async handleOne(
    topic: string,
    partition: number,
    message: KafkaMessage,
    heartbeat: () => Promise<void>,
    isRunning: () => boolean,
  ): Promise<void> {
    // A consumer span per message, continuing the trace its producer was in.
    const outcome = await traced(
      `consume ${topic}`,
      { kind: SpanKind.CONSUMER, parent: contextOf(message.headers), attributes: consumerAttributes(topic) },
      () => this.process(topic, partition, message, heartbeat, isRunning),
    );
    if (!outcome.done) await this.deadLetter(topic, partition, message, outcome);
  }

  private async process(
    topic: string,
    partition: number,
    message: KafkaMessage,
    heartbeat: () => Promise<void>,
    isRunning: () => boolean,
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
    let counted = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.handle(event, { ...base, attempt });
        return { done: true };
      } catch (error) {
        const permanent = error instanceof NonRetryableError;
        const transient = !permanent && (this.options.isTransient?.(error) ?? false);
        if (!transient) counted += 1;
        if (permanent || counted >= this.maxAttempts) {
          return { done: false, kind: 'failed', error: messageOf(error), attempts: attempt };
        }
        if (transient && !isRunning()) {
          // Shutting down: leave the message uncommitted for whoever takes the partition next.
          throw error;
        }
        this.logger.warn(
          { topic, offset: message.offset, attempt, transient },
          `handler failed, retrying: ${messageOf(error)}`,
        );
        await sleep(this.delay(attempt));
        await heartbeat();
      }
    }
  }
}
