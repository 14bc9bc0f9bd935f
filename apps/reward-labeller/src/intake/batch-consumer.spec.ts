import { chatTurnCompletedV1, chatTurnCompletedV1Example, type EventOf } from '@echoloop/contracts';
import { DLQ_HEADER, type EventPublisher } from '@echoloop/platform';
import type { EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { BatchConsumer } from './batch-consumer';

type TurnEvent = EventOf<typeof chatTurnCompletedV1>;

const TOPIC = chatTurnCompletedV1.topic;
const transient = new Error('connect ECONNREFUSED');
const poison = new Error('this turn breaks the handler');

/** Turn ids by name, so that the tests read by name. */
const ids = new Map<string, string>();
const idOf = (name: string) => ids.get(name) ?? (ids.set(name, crypto.randomUUID()), ids.get(name)!);
const nameOf = (e: TurnEvent) => [...ids].find(([, id]) => id === e.payload.turnId)?.[0];

function event(name: string): TurnEvent {
  const example = chatTurnCompletedV1Example as unknown as TurnEvent;
  return { ...example, eventId: crypto.randomUUID(), payload: { ...example.payload, turnId: idOf(name) } };
}

function message(offset: number, value: unknown): KafkaMessage {
  return {
    offset: String(offset),
    key: Buffer.from('conversation'),
    value: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
    timestamp: '0',
    attributes: 0,
    headers: {},
  } as KafkaMessage;
}

function setUp(handleBatch: (events: TurnEvent[]) => Promise<void>) {
  const commitOffsets = jest.fn(async () => undefined);
  const kafka = { consumer: () => ({ commitOffsets }) } as unknown as Kafka;
  const send = jest.fn(async () => undefined);
  const logger = { warn: jest.fn() } as unknown as Logger;
  const consumer = new BatchConsumer(
    kafka,
    { send } as unknown as EventPublisher,
    {
      groupId: 'labeller-test',
      contract: chatTurnCompletedV1,
      handleBatch,
      isTransient: (error) => error === transient,
      maxAttempts: 2,
      retryBackoffMs: { initial: 1, max: 1 },
    },
    logger,
  );
  let running = true;
  const run = (messages: KafkaMessage[]) =>
    consumer.processBatch({
      batch: { topic: TOPIC, partition: 0, messages },
      resolveOffset: jest.fn(),
      heartbeat: jest.fn(async () => undefined),
      isRunning: () => running,
      isStale: () => false,
    } as unknown as EachBatchPayload);
  const deadLettered = () =>
    (send.mock.calls as unknown as [string, { headers: Record<string, string> }[]][]).map(([topic, [m]]) => ({
      topic,
      offset: m?.headers[DLQ_HEADER.originalOffset],
      kind: m?.headers[DLQ_HEADER.errorKind],
    }));
  return { run, commitOffsets, deadLettered, stop: () => (running = false) };
}

describe('BatchConsumer', () => {
  it('hands the valid events to the handler at once, dead-letters an invalid one, and commits after all', async () => {
    const handled: (string | undefined)[][] = [];
    const { run, commitOffsets, deadLettered } = setUp(async (events) => {
      handled.push(events.map(nameOf));
    });

    await run([message(10, event('a')), message(11, '{not json'), message(12, event('b'))]);

    expect(handled).toEqual([['a', 'b']]);
    expect(deadLettered()).toEqual([{ topic: `${TOPIC}.dlq`, offset: '11', kind: 'invalid' }]);
    expect(commitOffsets).toHaveBeenCalledWith([{ topic: TOPIC, partition: 0, offset: '13' }]);
  });

  it('a poison message goes to the dead-letter topic while the rest of its batch is handled and committed', async () => {
    const done: (string | undefined)[] = [];
    const { run, commitOffsets, deadLettered } = setUp(async (events) => {
      if (events.some((e) => nameOf(e) === 'poison')) throw poison;
      done.push(...events.map(nameOf));
    });

    await run([message(20, event('a')), message(21, event('poison')), message(22, event('b'))]);

    expect(done).toEqual(['a', 'b']);
    expect(deadLettered()).toEqual([{ topic: `${TOPIC}.dlq`, offset: '21', kind: 'failed' }]);
    expect(commitOffsets).toHaveBeenCalledTimes(1);
    expect(commitOffsets).toHaveBeenCalledWith([{ topic: TOPIC, partition: 0, offset: '23' }]);
  });

  it('retries a batch that failed transiently as a whole, never dead-lettering it', async () => {
    let calls = 0;
    const { run, commitOffsets, deadLettered } = setUp(async (events) => {
      calls += 1;
      if (calls < 4) throw transient;
      expect(events).toHaveLength(2);
    });

    await run([message(30, event('a')), message(31, event('b'))]);

    expect(calls).toBe(4);
    expect(deadLettered()).toEqual([]);
    expect(commitOffsets).toHaveBeenCalledWith([{ topic: TOPIC, partition: 0, offset: '32' }]);
  });

  it('commits nothing when shut down during an outage: the batch is redelivered to the next owner', async () => {
    const { run, commitOffsets, stop } = setUp(async () => {
      stop();
      throw transient;
    });

    await expect(run([message(40, event('a'))])).rejects.toBe(transient);
    expect(commitOffsets).not.toHaveBeenCalled();
  });
});
