import { type Context, contextOf, endFailed, SpanKind, startSpan, traceHeaders } from '@echoloop/tracing';
import type { Message } from 'kafkajs';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';
import type { DataSource, EntityManager } from 'typeorm';
import { PgListener } from '../database/pg-listener';
import type { EventPublisher } from '../kafka/event-publisher';
import type { MetricsService } from '../metrics/metrics.service';
import { OUTBOX_CHANNEL } from './outbox-writer';
import { Backoff } from '../scheduling/backoff';

export interface OutboxRelayOptions {
  batchSize: number;
  /**
   * How long the relay sleeps while idle before it looks again. With `listen`, a safety net only (a notification or
   * wake() ends the sleep at once), so seconds; without, the poll interval.
   */
  idleMs: number;
  maxBackoffMs: number;
  /** Published rows are kept this long (for inspection), then deleted in batches while the relay is idle. */
  retainPublishedMs: number;
  /**
   * LISTEN for the notification enqueueEvent sends on commit (from any process) on a dedicated connection, which
   * comes back by itself after PostgreSQL restarts; the relay drains on each one, and once more after every
   * (re)connection, since notifications sent while disconnected are lost.
   */
  listen?: { connectionString: string; applicationName: string };
}

const PURGE_EVERY_MS = 60_000;
const PURGE_BATCH = 10_000;

interface OutboxRow {
  id: string;
  topic: string;
  message_key: string;
  payload: unknown;
  headers: Record<string, string>;
}

/** Any constant: only one relay (across all gateway replicas) publishes at a time, which keeps outbox order. */
const RELAY_LOCK_ID = 7_310_221;

/**
 * Publishes outbox rows to Kafka in id order and marks them published, at least once: rows are marked only after
 * Kafka acknowledged them, so a crash in between re-sends (consumers dedupe by eventId) and nothing is lost while
 * Kafka is down: rows wait, and the relay backs off and retries. It wakes when events are committed (a PostgreSQL
 * notification, or wake() in-process) and otherwise looks every `idleMs`.
 */
export class OutboxRelay {
  private stopped = true;
  /** Ends the current sleep: always on stop(), on wake() only while idle (not while backing off). */
  private sleeping?: { wakeable: boolean; end: () => void };
  private woken = false;
  private idleWaiters: (() => void)[] = [];
  private loop?: Promise<void>;
  private listener?: PgListener;
  private readonly published: Counter<'topic'>;
  private readonly failures: Counter;
  private readonly wakeups: Counter<'source'>;
  private readonly claims: Counter<'outcome'>;

  constructor(
    private readonly db: DataSource,
    private readonly publisher: EventPublisher,
    metrics: MetricsService,
    private readonly logger: Logger,
    private readonly options: OutboxRelayOptions = {
      batchSize: 500,
      idleMs: 250,
      maxBackoffMs: 5_000,
      retainPublishedMs: 24 * 3_600_000,
    },
    private readonly now: () => number = Date.now,
  ) {
    this.published = metrics.counter('outbox_published_total', 'Outbox events published to Kafka', ['topic']);
    this.failures = metrics.counter('outbox_relay_failures_total', 'Failed outbox publish attempts');
    this.wakeups = metrics.counter(
      'outbox_relay_wakeups_total',
      'Outbox relay wake-ups by source (notification, listening: LISTEN (re)connected)',
      ['source'],
    );
    this.claims = metrics.counter(
      'outbox_relay_claims_total',
      'Outbox reads by the relay: found rows to publish, or found none (idle, or another relay holds the lock)',
      ['outcome'],
    );
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
    const listen = this.options.listen;
    if (listen) {
      this.listener = new PgListener({
        ...listen,
        channel: OUTBOX_CHANNEL,
        onNotification: () => {
          this.wakeups.inc({ source: 'notification' });
          this.nudge();
        },
        onListening: () => {
          this.wakeups.inc({ source: 'listening' });
          this.nudge();
        },
        logger: this.logger,
        maxBackoffMs: this.options.maxBackoffMs,
      });
      this.listener.start();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.stop();
    this.listener = undefined;
    this.sleeping?.end();
    await this.loop;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  /**
   * Publish promptly: call after committing a transaction that enqueued events. A relay that listens ignores it:
   * every outbox write notifies, so the commit's own notification wakes it, and a second wake-up for the same commit
   * would read the outbox once more for nothing (a transaction of three round trips per turn).
   */
  wake(): void {
    if (!this.listener?.listening) this.nudge();
  }

  /** Resolves once the relay has nothing left to do and sleeps until the next wake-up (or the poll). */
  whenIdle(): Promise<void> {
    if (this.sleeping?.wakeable && !this.woken) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private nudge(): void {
    this.woken = true; // if the loop is busy publishing (or backing off), it looks again before sleeping
    if (this.sleeping?.wakeable) this.sleeping.end();
  }

  /** Publishes one batch; returns how many rows were published (0 when idle or another relay holds the lock). */
  async relayOnce(): Promise<number> {
    return (await this.relayBatch()).published;
  }

  /** One batch, and whether rows were left behind it (a full or trimmed batch): the loop drains those at once. */
  private async relayBatch(): Promise<{ published: number; more: boolean }> {
    let rows: OutboxRow[] = [];
    try {
      return await this.db.transaction(async (tx) => {
        // The lock and the read in one round trip: a CTE over a volatile function runs once, before the scan.
        const unpublished = await tx.query<OutboxRow[]>(
          `WITH relay AS (SELECT pg_try_advisory_xact_lock($1) AS locked)
           SELECT id, topic, message_key, payload, headers FROM outbox, relay
           WHERE relay.locked AND published_at IS NULL ORDER BY id LIMIT $2`,
          [RELAY_LOCK_ID, this.options.batchSize],
        );
        rows = fitBatch(unpublished);
        this.claims.inc({ outcome: rows.length ? 'rows' : 'empty' });
        if (rows.length === 0) return { published: 0, more: false };
        // A producer span per row, continuing the trace its writer was in; the message carries the span on.
        const spans = rows.map((row) =>
          startSpan(`publish ${row.topic}`, {
            kind: SpanKind.PRODUCER,
            parent: contextOf(row.headers),
            attributes: { 'messaging.system': 'kafka', 'messaging.destination.name': row.topic },
          }),
        );
        try {
          await this.publisher.sendBatch(groupByTopic(rows, spans));
        } catch (error) {
          for (const { span } of spans) endFailed(span, error);
          throw error;
        }
        for (const { span } of spans) span.end();
        await markPublished(tx, rows);
        for (const row of rows) this.published.inc({ topic: row.topic });
        return {
          published: rows.length,
          more: unpublished.length === this.options.batchSize || rows.length < unpublished.length,
        };
      });
    } catch (error) {
      this.failures.inc();
      if (rows.length) await this.recordFailure(rows, error);
      throw error;
    }
  }

  /**
   * Deletes published rows older than the retention, oldest first (they lead the id index), at most one batch;
   * returns how many. Safe from any number of relays at once.
   */
  async purgePublished(): Promise<number> {
    const cutoff = new Date(this.now() - this.options.retainPublishedMs);
    const [, deleted] = await this.db.query<[unknown[], number]>(
      `DELETE FROM outbox WHERE id IN (
         SELECT id FROM outbox WHERE published_at IS NOT NULL AND published_at < $1 ORDER BY id LIMIT $2)`,
      [cutoff, PURGE_BATCH],
    );
    return deleted;
  }

  private async run(): Promise<void> {
    const backoff = new Backoff({ initialMs: 200, maxMs: this.options.maxBackoffMs });
    let purgedAt = 0;
    while (!this.stopped) {
      try {
        const { more } = await this.relayBatch();
        backoff.reset();
        // Rows committed while this batch was out woke the relay already, so the sleep below returns at once.
        if (more) continue;
        if (this.now() - purgedAt >= PURGE_EVERY_MS) {
          purgedAt = this.now();
          await this.purgePublished();
        }
        await this.sleep(this.options.idleMs, true);
      } catch (error) {
        const retryInMs = backoff.next();
        this.logger.warn({ err: error, retryInMs }, 'outbox relay could not publish; will retry');
        // Not cut short by wake-ups: with every commit anywhere waking the relay, Kafka or PostgreSQL being down
        // would otherwise be retried at the rate of commits.
        await this.sleep(retryInMs, false);
      }
    }
  }

  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (wakeable && this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        this.sleeping = undefined;
        if (wakeable) this.woken = false;
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.sleeping = { wakeable, end };
      if (wakeable) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
  }

  private async recordFailure(rows: OutboxRow[], error: unknown): Promise<void> {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 1_000);
    await this.db
      .query('UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE id = ANY($1::bigint[])', [
        rows.map((r) => r.id),
        message,
      ])
      .catch(() => undefined);
  }
}

/** Kafka refuses requests over its message.max.bytes (1 MiB by default): keep each batch well under it. */
const MAX_BATCH_BYTES = 512 * 1024;

/** The longest prefix of `rows` within MAX_BATCH_BYTES (always at least one row, so the relay moves on). */
function fitBatch(rows: OutboxRow[]): OutboxRow[] {
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    bytes += JSON.stringify(rows[i]?.payload).length;
    if (bytes > MAX_BATCH_BYTES && i > 0) return rows.slice(0, i);
  }
  return rows;
}

function groupByTopic(
  rows: OutboxRow[],
  spans: { context: Context }[],
): { topic: string; messages: Message[] }[] {
  const byTopic = new Map<string, Message[]>();
  for (const [i, row] of rows.entries()) {
    const messages = byTopic.get(row.topic) ?? [];
    const traced = spans[i] ? { ...row.headers, ...traceHeaders(spans[i].context) } : row.headers;
    messages.push({ key: row.message_key, value: JSON.stringify(row.payload), headers: traced });
    byTopic.set(row.topic, messages);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

async function markPublished(tx: EntityManager, rows: OutboxRow[]): Promise<void> {
  await tx.query(
    'UPDATE outbox SET published_at = now(), attempts = attempts + 1 WHERE id = ANY($1::bigint[])',
    [rows.map((r) => r.id)],
  );
}
