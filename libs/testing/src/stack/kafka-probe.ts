import { LOCAL_KAFKA_BROKERS } from '@echoloop/config';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { uniqueName, waitFor } from './wait-for';

export const stackKafkaBrokers = (): string[] =>
  (process.env['KAFKA_BROKERS'] ?? LOCAL_KAFKA_BROKERS).split(',');

export const testKafka = (clientId = 'test'): Kafka =>
  new Kafka({ clientId, brokers: stackKafkaBrokers(), logLevel: logLevel.NOTHING, retry: { retries: 3 } });

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
  const consumer = kafka.consumer({ groupId: uniqueName('probe'), allowAutoTopicCreation: false });
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
