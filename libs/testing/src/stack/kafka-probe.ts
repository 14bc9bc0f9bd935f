import { LOCAL_KAFKA_BROKERS } from '@echoloop/config';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { uniqueName, waitFor } from './wait-for';

export const stackKafkaBrokers = (): string[] =>
  (process.env['KAFKA_BROKERS'] ?? LOCAL_KAFKA_BROKERS).split(',');

export const testKafka = (clientId = 'test'): Kafka =>
  new Kafka({ clientId, brokers: stackKafkaBrokers(), logLevel: logLevel.NOTHING, retry: { retries: 3 } });

/** Reads a topic from the beginning with a fresh group until `count` messages arrived. */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  count: number,
  timeoutMs = 20_000,
): Promise<KafkaMessage[]> {
  const received: KafkaMessage[] = [];
  const consumer = kafka.consumer({ groupId: uniqueName('probe'), allowAutoTopicCreation: false });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(message) });
    await waitFor(() => received.length >= count, { timeoutMs, what: `${count} message(s) on ${topic}` });
    return received;
  } finally {
    await consumer.disconnect();
  }
}
