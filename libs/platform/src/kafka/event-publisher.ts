import type { Contract, EventOf } from '@echoloop/contracts';
import { Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';
import { encodeEvent } from './event-codec';

/**
 * Idempotent producer with acks=all: a retried send is written once, and per-partition order is kept
 * (one request in flight).
 */
export class EventPublisher {
  private readonly producer: Producer;
  private connected?: Promise<void>;

  constructor(kafka: Kafka) {
    this.producer = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      // Java-compatible murmur2: a key lands on the same partition as with any other Kafka client.
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  connect(): Promise<void> {
    this.connected ??= this.producer.connect().catch((error: unknown) => {
      this.connected = undefined;
      throw error;
    });
    return this.connected;
  }

  async publish<C extends Contract>(contract: C, event: EventOf<C>, key: string): Promise<void> {
    await this.send(contract.topic, [encodeEvent(contract, event, key)]);
  }

  /** Sends already-encoded messages (the outbox relay and the dead-letter path use this). */
  async send(topic: string, messages: Message[]): Promise<void> {
    await this.connect();
    await this.producer.send({ topic, messages, acks: -1 });
  }

  /** One request for several topics (the outbox relay's batches); per-partition order is kept. */
  async sendBatch(topicMessages: { topic: string; messages: Message[] }[]): Promise<void> {
    await this.connect();
    await this.producer.sendBatch({ topicMessages, acks: -1 });
  }

  async disconnect(): Promise<void> {
    if (!this.connected) return;
    this.connected = undefined;
    await this.producer.disconnect();
  }
}
