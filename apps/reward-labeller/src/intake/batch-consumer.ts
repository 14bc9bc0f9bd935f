import type { Contract, EventOf } from '@echoloop/contracts';
import {
  type ConsumerBaseOptions,
  consumerAttributes,
  ContractConsumerBase,
  decodeEvent,
  EventDecodeError,
  every,
  messageOf,
  sleep,
} from '@echoloop/platform';
import { batchSpans, contextOf, ROOT, SpanKind, withContext } from '@echoloop/tracing';
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';

export interface BatchConsumerOptions<C extends Contract> extends ConsumerBaseOptions<C> {
  /** Handles a batch's valid events together, in offset order; must be idempotent (a batch may come again). */
  handleBatch: (events: EventOf<C>[]) => Promise<void>;
  /** Errors of the infrastructure: the batch is retried until it goes through, never dead-lettered. */
  isTransient: (error: unknown) => boolean;
}

const HEARTBEAT_MS = 1_000;

/**
 * ContractConsumer's guarantees for a handler that takes a whole batch: invalid messages go to `<topic>.dlq` at
 * once; the valid ones are handled together, retried while the failure is transient; a batch that fails for
 * another reason is handled again message by message, so that only the poison message is dead-lettered (after
 * `maxAttempts`) and the others go through. The offset is committed only after all of it.
 */
export class BatchConsumer<C extends Contract> extends ContractConsumerBase<C, BatchConsumerOptions<C>> {
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
    const stopBeating = every(HEARTBEAT_MS, heartbeat);
    try {
      const valid: { message: KafkaMessage; event: EventOf<C> }[] = [];
      for (const message of batch.messages) {
        try {
          valid.push({ message, event: decodeEvent(this.options.contract, message.value) });
        } catch (error) {
          if (!(error instanceof EventDecodeError)) throw error;
          await this.deadLetter(batch.topic, batch.partition, message, {
            kind: 'invalid',
            error: error.message,
            attempts: 1,
          });
        }
      }
      // A consumer span per message, continuing its producer's trace; the batch's work (the judges) runs in the
      // span of its one message, or in a batch span linked to all of them.
      const spans = batchSpans(
        `consume ${batch.topic}`,
        valid.map(({ message }) => contextOf(message.headers)),
        { kind: SpanKind.CONSUMER, attributes: consumerAttributes(batch.topic) },
      );
      try {
        await withContext(spans.batch, async () => {
          if (
            valid.length > 0 &&
            !(await this.handleAll(
              valid.map((v) => v.event),
              isRunning,
            ))
          ) {
            for (const [i, { message, event }] of valid.entries()) {
              if (!isRunning() || isStale()) return;
              await withContext(spans.each[i] ?? ROOT, () =>
                this.handleOne(batch.topic, batch.partition, message, event, isRunning),
              );
            }
          }
        });
      } finally {
        spans.end();
      }
    } finally {
      stopBeating();
    }
    if (!isRunning() || isStale()) return;
    resolveOffset(last.offset);
    await this.commit(batch.topic, batch.partition, last.offset);
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
          return this.deadLetter(topic, partition, message, {
            kind: 'failed',
            error: messageOf(error),
            attempts: attempt,
          });
        if (transient && !isRunning()) throw error;
        this.logger.warn(
          { topic, offset: message.offset, attempt, transient },
          `handler failed, retrying: ${messageOf(error)}`,
        );
        await sleep(this.delay(attempt));
      }
    }
  }
}
