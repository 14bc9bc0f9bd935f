import {
  chatTurnCompletedV1,
  chatTurnCompletedV1Example as golden,
  createEvent,
  defineContract,
  type EventOf,
} from '@echoloop/contracts';
import { dataSourceOptions } from '@echoloop/persistence';
import {
  createTestDatabase,
  readTopic,
  testKafka,
  uniqueName,
  waitFor,
  type TestDatabase,
} from '@echoloop/testing';
import { Kafka, logLevel } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { DataSource } from 'typeorm';
import { EventPublisher } from '../kafka/event-publisher';
import { ensureTopics } from '../kafka/topic-admin';
import { MetricsService } from '../metrics/metrics.service';
import { enqueueEvent, forgetUserEvents } from './outbox-writer';
import { OutboxRelay } from './outbox-relay';

const logger = pino({ level: 'silent' });

describe('outbox relay on PostgreSQL and Kafka', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let publisher: EventPublisher;
  const kafka = testKafka('outbox-int');

  const freshContract = async () => {
    const contract = defineContract(
      `it.${uniqueName('outbox')}.v1`,
      1,
      chatTurnCompletedV1.schema.shape.payload,
    );
    await ensureTopics(kafka, [{ topic: contract.topic, numPartitions: 1 }]);
    return contract;
  };
  const turn = <C extends typeof chatTurnCompletedV1>(contract: C, conversationId: string) =>
    createEvent(
      contract,
      { ...golden.payload, turnId: randomUUID(), conversationId } as never,
      'test',
    ) as EventOf<C>;
  const relay = (p: EventPublisher = publisher, now: () => number = Date.now) =>
    new OutboxRelay(
      dataSource,
      p,
      new MetricsService('test'),
      logger,
      { batchSize: 100, idleMs: 50, maxBackoffMs: 100, retainPublishedMs: 60_000 },
      now,
    );
  /** A running relay woken by PostgreSQL notifications; it would poll only once a minute. */
  const listeningRelay = (applicationName: string) =>
    new OutboxRelay(dataSource, publisher, new MetricsService('test'), logger, {
      batchSize: 100,
      idleMs: 60_000,
      maxBackoffMs: 100,
      retainPublishedMs: 60_000,
      listen: { connectionString: db.url, applicationName },
    });
  /** The backend of the relay's LISTEN connection, once it listens. */
  const listeningBackend = (applicationName: string, not?: number) =>
    waitFor(
      async () => {
        const [row] = await dataSource.query<{ pid: number }[]>(
          `SELECT pid FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = $1 AND query LIKE 'LISTEN %' AND pid <> $2`,
          [applicationName, not ?? 0],
        );
        return row?.pid;
      },
      { what: `${applicationName} to LISTEN` },
    );
  const published = (eventId: string, timeoutMs: number) =>
    waitFor(
      async () => {
        const [row] = await dataSource.query<{ published_at: Date | null }[]>(
          'SELECT published_at FROM outbox WHERE event_id = $1',
          [eventId],
        );
        return row?.published_at ?? undefined;
      },
      { timeoutMs, intervalMs: 50, what: `event ${eventId} to be published` },
    );
  const outboxRows = async (eventIds: string[]) =>
    (
      await dataSource.query<{ event_id: string }[]>(`SELECT event_id FROM outbox WHERE event_id = ANY($1)`, [
        eventIds,
      ])
    ).map((r) => r.event_id);

  beforeAll(async () => {
    db = await createTestDatabase('outbox');
    dataSource = await new DataSource(dataSourceOptions({ url: db.url })).initialize();
    await dataSource.runMigrations();
    publisher = new EventPublisher(kafka);
  });

  afterAll(async () => {
    await publisher.disconnect();
    await dataSource.destroy();
    await db.drop();
  });

  it('publishes committed events in order, once, and never a rolled-back one', async () => {
    const contract = await freshContract();
    const conversationId = randomUUID();
    const committed = [
      turn(contract, conversationId),
      turn(contract, conversationId),
      turn(contract, conversationId),
    ];
    await dataSource.transaction(async (tx) => {
      for (const event of committed) await enqueueEvent(tx, contract, event, conversationId);
    });
    await dataSource
      .transaction(async (tx) => {
        await enqueueEvent(tx, contract, turn(contract, conversationId), conversationId);
        throw new Error('the turn failed to save');
      })
      .catch(() => undefined);

    expect(await relay().relayOnce()).toBe(3);
    expect(await relay().relayOnce()).toBe(0);

    const messages = await readTopic(kafka, contract.topic, 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(messages.map((m) => JSON.parse(String(m.value)).eventId)).toEqual(committed.map((e) => e.eventId));
    expect(messages.every((m) => String(m.key) === conversationId)).toBe(true);
    expect(String(messages[0]?.headers?.['event-id'])).toBe(committed[0]?.eventId);
    expect(
      await dataSource.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`),
    ).toEqual([{ n: 0 }]);
  });

  it('keeps events when Kafka is unreachable and publishes them once it is back', async () => {
    const contract = await freshContract();
    const event = turn(contract, randomUUID());
    await dataSource.transaction((tx) => enqueueEvent(tx, contract, event, event.payload.conversationId));

    const unreachable = new EventPublisher(
      new Kafka({
        brokers: ['127.0.0.1:1'],
        logLevel: logLevel.NOTHING,
        retry: { retries: 1, maxRetryTime: 100 },
        connectionTimeout: 200,
      }),
    );
    await expect(relay(unreachable).relayOnce()).rejects.toThrow();
    const [row] = await dataSource.query(
      `SELECT attempts, last_error, published_at FROM outbox WHERE event_id = $1`,
      [event.eventId],
    );
    expect(row).toMatchObject({ attempts: 1, published_at: null, last_error: expect.any(String) });

    expect(await relay().relayOnce()).toBe(1);
    const [message] = await readTopic(kafka, contract.topic, 1);
    expect(JSON.parse(String(message?.value))).toEqual(event);
  });

  it('publishes with one relay at a time: a second relay finds the first at work and publishes nothing', async () => {
    const contract = await freshContract();
    const events = [turn(contract, randomUUID()), turn(contract, randomUUID())];
    await dataSource.transaction(async (tx) => {
      for (const event of events) await enqueueEvent(tx, contract, event, event.payload.conversationId);
    });
    // The first relay is held inside its Kafka send, with its batch read and its lock taken.
    let sending!: () => void;
    const sendStarted = new Promise<void>((resolve) => (sending = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = Object.assign(Object.create(publisher) as EventPublisher, {
      sendBatch: async (batch: Parameters<EventPublisher['sendBatch']>[0]) => {
        sending();
        await released;
        return publisher.sendBatch(batch);
      },
    });
    const first = relay(held).relayOnce();
    await sendStarted;
    expect(await relay().relayOnce()).toBe(0);
    release();
    expect(await first).toBe(2);
    expect(await relay().relayOnce()).toBe(0);
    const messages = await readTopic(kafka, contract.topic, 2);
    expect(messages.map((m) => JSON.parse(String(m.value)).eventId)).toEqual(events.map((e) => e.eventId));
  });

  it('rejects an invalid event at write time, so it never reaches the outbox', async () => {
    const contract = await freshContract();
    const bad = { ...turn(contract, randomUUID()), payload: { turnId: 'nope' } };
    await expect(
      dataSource.transaction((tx) => enqueueEvent(tx, contract, bad as never, 'k')),
    ).rejects.toThrow(/turnId/);
  });

  it('the background loop publishes promptly when woken', async () => {
    const contract = await freshContract();
    const running = relay();
    running.start();
    try {
      const event = turn(contract, randomUUID());
      await dataSource.transaction((tx) => enqueueEvent(tx, contract, event, event.payload.conversationId));
      running.wake();
      const [message] = await readTopic(kafka, contract.topic, 1);
      expect(JSON.parse(String(message?.value)).eventId).toBe(event.eventId);
    } finally {
      await running.stop();
    }
  });

  it('publishes an event committed by another connection on its notification, without waiting for a poll', async () => {
    const contract = await freshContract();
    const name = uniqueName('relay');
    const running = listeningRelay(name);
    running.start();
    const other = await new DataSource(dataSourceOptions({ url: db.url })).initialize();
    try {
      await listeningBackend(name);
      const events = [turn(contract, randomUUID()), turn(contract, randomUUID())];
      const started = Date.now();
      // Another process's connection, and no wake(): only the notification can tell the relay.
      await other.transaction(async (tx) => {
        for (const event of events) await enqueueEvent(tx, contract, event, 'k');
      });
      for (const event of events) await published(event.eventId, 5_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      const messages = await readTopic(kafka, contract.topic, 2);
      expect(messages.map((m) => JSON.parse(String(m.value)).eventId)).toEqual(events.map((e) => e.eventId));
    } finally {
      await other.destroy();
      await running.stop();
    }
  });

  it('reads the outbox once per commit when it listens: the wake() after a commit adds no read for nothing', async () => {
    const contract = await freshContract();
    const name = uniqueName('relay');
    const metrics = new MetricsService('test');
    const running = new OutboxRelay(dataSource, publisher, metrics, logger, {
      batchSize: 100,
      idleMs: 60_000,
      maxBackoffMs: 100,
      retainPublishedMs: 60_000,
      listen: { connectionString: db.url, applicationName: name },
    });
    const count = async (metric: string, label: string, value: string) =>
      (await metrics.registry.getSingleMetric(metric)?.get())?.values.find((v) => v.labels[label] === value)
        ?.value ?? 0;
    running.start();
    try {
      await listeningBackend(name);
      await waitFor(async () => (await count('outbox_relay_wakeups_total', 'source', 'listening')) === 1, {
        what: 'the relay to listen',
      });
      await running.whenIdle();
      const emptyBefore = await count('outbox_relay_claims_total', 'outcome', 'empty');
      for (let i = 1; i <= 3; i++) {
        const event = turn(contract, randomUUID());
        await dataSource.transaction((tx) => enqueueEvent(tx, contract, event, 'k'));
        running.wake();
        await published(event.eventId, 5_000);
        const notified = async () =>
          (await count('outbox_relay_wakeups_total', 'source', 'notification')) >= i;
        await waitFor(notified, { what: `notification ${i}` });
        await running.whenIdle();
      }
      expect(await count('outbox_relay_claims_total', 'outcome', 'rows')).toBe(3);
      expect((await count('outbox_relay_claims_total', 'outcome', 'empty')) - emptyBefore).toBe(0);
    } finally {
      await running.stop();
    }
  });

  it('listens again by itself after losing its LISTEN connection, and publishes what was committed meanwhile', async () => {
    const contract = await freshContract();
    const name = uniqueName('relay');
    const running = listeningRelay(name);
    running.start();
    try {
      const first = await listeningBackend(name);
      await dataSource.query('SELECT pg_terminate_backend($1)', [first]);
      await waitFor(
        async () =>
          (await dataSource.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [first])).length === 0,
        { what: 'the LISTEN connection to be gone' },
      );
      // Committed while no one listens: its notification is lost, the catch-up after reconnecting finds it.
      const missed = turn(contract, randomUUID());
      await dataSource.transaction((tx) => enqueueEvent(tx, contract, missed, 'k'));
      await published(missed.eventId, 10_000);

      const second = await listeningBackend(name, first);
      expect(second).not.toBe(first);
      const later = turn(contract, randomUUID());
      await dataSource.transaction((tx) => enqueueEvent(tx, contract, later, 'k'));
      await published(later.eventId, 5_000);
    } finally {
      await running.stop();
    }
  });

  it('stops promptly even while idle with a long poll interval', async () => {
    const name = uniqueName('relay');
    const running = listeningRelay(name);
    running.start();
    await listeningBackend(name);
    const started = Date.now();
    await running.stop();
    expect(Date.now() - started).toBeLessThan(2_000);
    await waitFor(
      async () =>
        (await dataSource.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [name]))
          .length === 0,
      { what: 'the LISTEN connection to be closed' },
    );
  });

  it('purges published rows past the retention, never unpublished ones', async () => {
    const contract = await freshContract();
    const [published, waiting] = [turn(contract, randomUUID()), turn(contract, randomUUID())];
    await dataSource.transaction((tx) => enqueueEvent(tx, contract, published, 'k'));
    while ((await relay().relayOnce()) > 0);
    await dataSource.transaction((tx) => enqueueEvent(tx, contract, waiting, 'k'));
    const ids = [published.eventId, waiting.eventId];

    expect(await relay().purgePublished()).toBe(0); // within the retention
    expect((await outboxRows(ids)).sort()).toEqual([...ids].sort());
    const later = relay(publisher, () => Date.now() + 61_000);
    expect(await later.purgePublished()).toBeGreaterThanOrEqual(1);
    expect(await outboxRows(ids)).toEqual([waiting.eventId]);
  });

  it('forgets every event of an erased user, published or not, and only theirs', async () => {
    const contract = await freshContract();
    const [userId, otherId] = [randomUUID(), randomUUID()];
    const of = (user: string) => {
      const event = turn(contract, randomUUID());
      return { ...event, payload: { ...event.payload, userId: user } };
    };
    const events = [of(userId), of(userId), of(otherId)];
    await dataSource.transaction(async (tx) => {
      for (const e of events) await enqueueEvent(tx, contract, e as never, 'k');
    });
    await dataSource.transaction((tx) => forgetUserEvents(tx, userId));
    expect(await outboxRows(events.map((e) => e.eventId))).toEqual([events[2]!.eventId]);
  });
});
