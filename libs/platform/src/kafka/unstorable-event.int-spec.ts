import {
  chatTurnCompletedV1,
  chatTurnCompletedV1Example as golden,
  createEvent,
  deadLetterTopic,
  defineContract,
} from '@echoloop/contracts';
import { readTopic, testKafka, uniqueName, waitFor } from '@echoloop/testing';
import pino from 'pino';
import { ContractConsumer } from './contract-consumer';
import { DLQ_HEADER } from './dead-letter';
import { EventPublisher } from './event-publisher';
import { ensureTopics } from './topic-admin';

/**
 * A turn event holding a lone surrogate (which PostgreSQL's jsonb refuses) is poison: dead-lettered at once,
 * never handed to the handler (the labeller would retry the failing insert), and the consumer keeps going.
 */
it('dead-letters an event with a lone surrogate or NUL at once and keeps consuming', async () => {
  const contract = defineContract(
    `it.${uniqueName('turns')}.v1`,
    1,
    chatTurnCompletedV1.schema.shape.payload,
  );
  const kafka = testKafka('unstorable-event');
  const publisher = new EventPublisher(kafka);
  await publisher.connect();
  await ensureTopics(kafka, [{ topic: contract.topic }, { topic: deadLetterTopic(contract.topic) }]);
  const valid = createEvent(contract, golden.payload as never, 'integration-test');
  const withText = (content: string) =>
    JSON.stringify({
      ...valid,
      payload: { ...valid.payload, userMessage: { ...valid.payload.userMessage, content } },
    });
  await publisher.send(contract.topic, [
    { key: 'k', value: withText('lone \ud800 surrogate') },
    { key: 'k', value: withText('a NUL \u0000 here') },
  ]);
  await publisher.publish(contract, valid, 'k');

  const handled: string[] = [];
  const consumer = new ContractConsumer(
    kafka,
    publisher,
    {
      groupId: uniqueName('group'),
      contract,
      handle: async (event) => void handled.push(event.eventId),
      fromBeginning: true,
      maxWaitTimeMs: 100,
    },
    pino({ level: 'silent' }),
  );
  try {
    await consumer.start();
    const parked = await readTopic(kafka, deadLetterTopic(contract.topic), 2);
    await waitFor(() => handled.length === 1, { what: 'the valid event after the poison' });
    expect(handled).toEqual([valid.eventId]);
    for (const message of parked) {
      expect(String(message.headers?.[DLQ_HEADER.errorKind])).toBe('invalid');
      expect(String(message.headers?.[DLQ_HEADER.attempts])).toBe('1');
      expect(String(message.headers?.[DLQ_HEADER.errorMessage])).toMatch(/payload\.userMessage\.content/);
    }
  } finally {
    await consumer.stop();
    await publisher.disconnect();
  }
}, 60_000);
