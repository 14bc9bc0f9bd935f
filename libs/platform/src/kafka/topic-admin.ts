import type { Kafka } from 'kafkajs';

export interface TopicSpec {
  topic: string;
  numPartitions?: number;
  /** How long Kafka keeps the topic's messages (events carry user text); the broker's default when unset. */
  retentionMs?: number;
}

/** Creates the topics an app needs (and their dead-letter topics) at start-up; existing ones are left alone. */
export async function ensureTopics(kafka: Kafka, topics: readonly TopicSpec[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length === 0) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map(({ topic, numPartitions = 3, retentionMs }) => ({
        topic,
        numPartitions,
        replicationFactor: -1,
        ...(retentionMs && { configEntries: [{ name: 'retention.ms', value: String(retentionMs) }] }),
      })),
    });
  } finally {
    await admin.disconnect();
  }
}
