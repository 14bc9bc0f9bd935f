import type { Consumer, EachBatchPayload } from 'kafkajs';

/** How far a partition's consumer is behind, in messages. */
export interface PartitionLag {
  topic: string;
  partition: number;
  messages: number;
}

export interface BatchRunOptions {
  /** One topic, or several read by the same group. */
  topic: string | readonly string[];
  fromBeginning?: boolean;
  partitionsConcurrently?: number;
  onLag?: (lag: PartitionLag) => void;
}

/**
 * Subscribes and runs a consumer batch by batch with manual offsets (the caller resolves and commits after its
 * writes), reporting the lag around each batch: the one way every contract consumer runs.
 */
export async function runBatches(
  consumer: Consumer,
  { topic, fromBeginning = false, partitionsConcurrently = 1, onLag }: BatchRunOptions,
  eachBatch: (payload: EachBatchPayload) => Promise<void>,
): Promise<void> {
  if (onLag) {
    // While a batch is handled its messages count as lag, so "caught up" never holds mid-batch.
    consumer.on(consumer.events.START_BATCH_PROCESS, ({ payload }) =>
      onLag({
        topic: payload.topic,
        partition: payload.partition,
        messages: Number(payload.offsetLagLow) + 1,
      }),
    );
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) =>
      onLag({ topic: payload.topic, partition: payload.partition, messages: Number(payload.offsetLag) }),
    );
  }
  await consumer.connect();
  await consumer.subscribe({ topics: typeof topic === 'string' ? [topic] : [...topic], fromBeginning });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: partitionsConcurrently,
    eachBatch,
  });
}
