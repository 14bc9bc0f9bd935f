import { LOCAL_KAFKA_BROKERS } from '@echoloop/config';
import { chatFeedbackV1, chatFeedbackV2, chatTurnCompletedV1 } from '@echoloop/contracts';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { uniqueName, waitFor } from './wait-for';

export const stackKafkaBrokers = (): string[] =>
  (process.env['KAFKA_BROKERS'] ?? LOCAL_KAFKA_BROKERS).split(',');

export const testKafka = (clientId = 'test'): Kafka =>
  new Kafka({ clientId, brokers: stackKafkaBrokers(), logLevel: logLevel.NOTHING, retry: { retries: 3 } });

/**
 * Commits each new consumer group's offsets at its topic's current end, so that an app started with the group
 * reads what comes next instead of the whole retained history (everything the suites before it published). A
 * topic that does not exist yet has no history to skip. The groups are set in parallel.
 */
export async function startGroupsAtEnd(
  kafka: Kafka,
  groups: readonly { groupId: string; topic: string }[],
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = new Set(await admin.listTopics());
    await Promise.all(
      groups
        .filter(({ topic }) => topics.has(topic))
        .map(async ({ groupId, topic }) => {
          // A topic another suite created a moment ago may have no partition leader yet ("not the leader for
          // that topic-partition"): asked again until it has.
          const ends = await waitFor(() => admin.fetchTopicOffsets(topic), {
            timeoutMs: 30_000,
            intervalMs: 200,
            what: `the end offsets of ${topic}`,
          });
          await commitAt(kafka, groupId, topic, ends);
        }),
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * Commits offsets for a group as its only member: join, commit, leave. kafkajs's `admin.setOffsets` does the same
 * but then waits out a whole fetch (5 s) before it returns; this returns as soon as the commit is acknowledged.
 */
async function commitAt(
  kafka: Kafka,
  groupId: string,
  topic: string,
  ends: readonly { partition: number; high: string }[],
): Promise<void> {
  // A short fetch wait: disconnecting waits for the fetch in flight.
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: 50 });
  const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
  await consumer.connect();
  try {
    await consumer.subscribe({ topic });
    // Nothing is handled or committed automatically: the only commit is the one below. (No pause: `run` can
    // return before the group is initialized, and pausing then throws; a new group fetches from the end anyway.)
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => undefined });
    await joined;
    await consumer.commitOffsets(ends.map(({ partition, high }) => ({ topic, partition, offset: high })));
  } finally {
    await consumer.disconnect();
  }
}

/**
 * A new LABELLER_GROUP_ID whose groups start at the topics' current ends. A new labeller group labels the whole
 * retained history by design; in a test run that history is every turn and rating the suites before published,
 * which each labeller would otherwise work through (slowly, on a loaded machine) before the test's own events.
 * The group names are the reward labeller's (its turn intake, and its feedback intake's `.feedback` and
 * `.feedback-v2`).
 */
export async function freshLabellerGroup(prefix = 'labeller'): Promise<string> {
  const groupId = uniqueName(prefix);
  await startGroupsAtEnd(testKafka('labeller-groups'), [
    { groupId, topic: chatTurnCompletedV1.topic },
    { groupId: `${groupId}.feedback`, topic: chatFeedbackV1.topic },
    { groupId: `${groupId}.feedback-v2`, topic: chatFeedbackV2.topic },
  ]);
  return groupId;
}

/** Reads a topic from the beginning with a fresh group until `count` messages arrived. */
export function readTopic(
  kafka: Kafka,
  topic: string,
  count: number,
  timeoutMs = 20_000,
): Promise<KafkaMessage[]> {
  return readTopicUntil(
    kafka,
    topic,
    (received) => received.length >= count,
    `${count} message(s) on ${topic}`,
    timeoutMs,
  );
}

/** Reads a topic from the beginning until the messages matching `match` number `count`; returns those. */
export async function findOnTopic(
  kafka: Kafka,
  topic: string,
  match: (message: KafkaMessage) => boolean,
  count = 1,
  timeoutMs = 30_000,
): Promise<KafkaMessage[]> {
  const all = await readTopicUntil(
    kafka,
    topic,
    (received) => received.filter(match).length >= count,
    `${count} matching message(s) on ${topic}`,
    timeoutMs,
  );
  return all.filter(match);
}

async function readTopicUntil(
  kafka: Kafka,
  topic: string,
  done: (received: KafkaMessage[]) => boolean,
  what: string,
  timeoutMs: number,
): Promise<KafkaMessage[]> {
  const received: KafkaMessage[] = [];
  // A short fetch wait: disconnecting waits for the fetch in flight.
  const consumer = kafka.consumer({
    groupId: uniqueName('probe'),
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(message) });
    await waitFor(() => done(received), { timeoutMs, what });
    return received;
  } finally {
    await consumer.disconnect();
  }
}
