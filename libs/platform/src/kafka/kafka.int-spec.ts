import {
  chatTurnCompletedV1,
  chatTurnCompletedV1Example as golden,
  createEvent,
  deadLetterTopic,
  defineContract,
  type EventOf,
} from '@echoloop/contracts';
import { readTopic, testKafka, uniqueName, waitFor } from '@echoloop/testing';
import type { Kafka } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import pino from 'pino';

import { ContractConsumer, NonRetryableError, type MessageContext } from './contract-consumer';
import { DLQ_HEADER } from './dead-letter';
import { EventPublisher } from './event-publisher';
import { ensureTopics } from './topic-admin';

const logger = pino({ level: 'silent' });

/** Each test gets its own topic (same payload schema as the real contract) so runs never see each other. */
const freshContract = () =>
  defineContract(`it.${uniqueName('turns')}.v1`, 1, chatTurnCompletedV1.schema.shape.payload);
type TurnContract = ReturnType<typeof freshContract>;

const turn = (contract: TurnContract, conversationId: string = randomUUID()): EventOf<TurnContract> =>
  createEvent(contract, { ...golden.payload, conversationId } as never, 'integration-test');

describe('Kafka wiring on a real broker', () => {
  let kafka: Kafka;
  let publisher: EventPublisher;
  const consumers: ContractConsumer<TurnContract>[] = [];

  const consume = async (
    contract: TurnContract,
    handle: (event: EventOf<TurnContract>, context: MessageContext) => Promise<void>,
    groupId = uniqueName('group'),
  ) => {
    const consumer = new ContractConsumer(
      kafka,
      publisher,
      {
        groupId,
        contract,
        handle,
        fromBeginning: true,
        maxAttempts: 3,
        retryBackoffMs: { initial: 10, max: 20 },
        // Stopping a consumer waits for its fetch in flight.
        maxWaitTimeMs: 100,
      },
      logger,
    );
    consumers.push(consumer);
    await consumer.start();
    return consumer;
  };

  const setUp = async () => {
    const contract = freshContract();
    await ensureTopics(kafka, [{ topic: contract.topic }, { topic: deadLetterTopic(contract.topic) }]);
    return contract;
  };

  beforeAll(async () => {
    kafka = testKafka('platform-int');
    publisher = new EventPublisher(kafka);
    await publisher.connect();
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
  });

  afterAll(async () => {
    await publisher.disconnect();
  });

  it('delivers a published contract event, validated, keyed by conversation, in order per key', async () => {
    const contract = await setUp();
    const conversationId = golden.payload.conversationId;
    const sent = [
      turn(contract, conversationId),
      turn(contract, conversationId),
      turn(contract, conversationId),
    ];
    for (const event of sent) await publisher.publish(contract, event, conversationId);

    const received: { event: EventOf<TurnContract>; context: MessageContext }[] = [];
    await consume(contract, async (event, context) => void received.push({ event, context }));
    await waitFor(() => received.length === 3, { what: 'three events', timeoutMs: 30_000 });

    expect(received.map((r) => r.event.eventId)).toEqual(sent.map((e) => e.eventId));
    expect(received[0]?.event).toEqual(sent[0]);
    expect(received[0]?.context.key).toBe(conversationId);
    expect(received[0]?.context.headers).toMatchObject({
      'event-id': sent[0]?.eventId,
      'schema-version': '1',
    });
  });

  it('refuses to publish an event that breaks the contract', async () => {
    const contract = await setUp();
    const bad = { ...turn(contract, golden.payload.conversationId), payload: { turnId: 'not-a-uuid' } };
    await expect(publisher.publish(contract, bad as never, 'k')).rejects.toThrow(/turnId/);
  });

  it('dead-letters invalid messages with the error in the headers and keeps consuming', async () => {
    const contract = await setUp();
    const valid = turn(contract, golden.payload.conversationId);
    await publisher.send(contract.topic, [
      { key: 'k', value: '{not json' },
      { key: 'k', value: JSON.stringify({ ...valid, payload: { ...valid.payload, userId: 42 } }) },
    ]);
    await publisher.publish(contract, valid, 'k');

    const handled: string[] = [];
    await consume(contract, async (event) => void handled.push(event.eventId));
    const parked = await readTopic(kafka, deadLetterTopic(contract.topic), 2);
    await waitFor(() => handled.length === 1, { what: 'the valid event' });

    expect(handled).toEqual([valid.eventId]);
    const headers = parked.map((m) =>
      Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(v)])),
    );
    expect(headers[0]).toMatchObject({
      [DLQ_HEADER.errorKind]: 'invalid',
      [DLQ_HEADER.errorMessage]: 'message value is not valid JSON',
      [DLQ_HEADER.originalTopic]: contract.topic,
      [DLQ_HEADER.originalOffset]: '0',
    });
    expect(headers[1]?.[DLQ_HEADER.errorMessage]).toMatch(/payload\.userId/);
    expect(parked[0]?.value?.toString()).toBe('{not json');
  });

  it('retries a failing handler, then succeeds without dead-lettering', async () => {
    const contract = await setUp();
    await publisher.publish(contract, turn(contract, golden.payload.conversationId), 'k');
    const attempts: number[] = [];
    await consume(contract, async (_event, context) => {
      attempts.push(context.attempt);
      if (context.attempt < 3) throw new Error('database briefly away');
    });
    await waitFor(() => attempts.length === 3, { what: 'three attempts' });
    expect(attempts).toEqual([1, 2, 3]);
  });

  it('dead-letters after the last attempt, or at once for a non-retryable error', async () => {
    const contract = await setUp();
    const [first, second] = [turn(contract), turn(contract)];
    await publisher.publish(contract, first, 'a');
    await publisher.publish(contract, second, 'b');
    const attempts = new Map<string, number>();
    await consume(contract, async (event) => {
      attempts.set(event.eventId, (attempts.get(event.eventId) ?? 0) + 1);
      if (event.eventId === first.eventId) throw new Error('judge keeps timing out');
      throw new NonRetryableError('checkpoint unknown');
    });
    const parked = await readTopic(kafka, deadLetterTopic(contract.topic), 2);
    const byEvent = new Map(parked.map((m) => [String(m.headers?.['event-id']), m.headers ?? {}]));

    expect(attempts.get(first.eventId)).toBe(3);
    expect(attempts.get(second.eventId)).toBe(1);
    expect(String(byEvent.get(first.eventId)?.[DLQ_HEADER.errorMessage])).toBe('judge keeps timing out');
    expect(String(byEvent.get(first.eventId)?.[DLQ_HEADER.attempts])).toBe('3');
    expect(String(byEvent.get(second.eventId)?.[DLQ_HEADER.errorKind])).toBe('failed');
  });

  it('commits offsets only after handling: a restarted group resumes after the last handled event', async () => {
    const contract = await setUp();
    const groupId = uniqueName('group');
    const [a, b] = [turn(contract), turn(contract)];
    await publisher.publish(contract, a, 'k');
    const firstRun: string[] = [];
    const consumer = await consume(contract, async (event) => void firstRun.push(event.eventId), groupId);
    await waitFor(() => firstRun.length === 1, { what: 'first event' });
    await consumer.stop();
    consumers.splice(consumers.indexOf(consumer), 1);

    await publisher.publish(contract, b, 'k');
    const secondRun: string[] = [];
    await consume(contract, async (event) => void secondRun.push(event.eventId), groupId);
    await waitFor(() => secondRun.length === 1, { what: 'second event' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(secondRun).toEqual([b.eventId]);
  });
});
