import type { Contract, EventOf } from '@echoloop/contracts';
import { traceHeaders } from '@echoloop/tracing';
import type { EntityManager } from 'typeorm';
import { eventHeaders } from '../kafka/event-codec';

/**
 * The one writer of outbox rows. Every row is made by outboxRow, which validates the event against its contract, so
 * a bad event fails the write instead of reaching Kafka; lint forbids writing `INSERT INTO outbox` anywhere else.
 */

/** Announces committed outbox rows to every relay (OutboxRelay LISTENs on it). */
export const OUTBOX_CHANNEL = 'echoloop_outbox';

/**
 * The start of every statement that writes outbox rows, for the one statement (a reply's commit) that writes its
 * row along with others; its values come from an OutboxRow.
 */
export const OUTBOX_INSERT = 'INSERT INTO outbox (event_id, topic, message_key, payload, headers)';

declare const validated: unique symbol;

/** An event as the outbox stores it, validated against its contract (only outboxRow makes one). */
export interface OutboxRow {
  readonly [validated]: true;
  readonly eventId: string;
  readonly topic: string;
  readonly key: string;
  /** The event as JSON text. */
  readonly payload: string;
  readonly headers: string;
}

export function outboxRow<C extends Contract>(contract: C, event: EventOf<C>, key: string): OutboxRow {
  const valid = contract.schema.parse(event);
  return {
    eventId: valid.eventId,
    topic: contract.topic,
    key,
    payload: JSON.stringify(valid),
    // The writer's trace goes with the row: the relay's publish and every consumer continue it.
    headers: JSON.stringify({ ...eventHeaders(valid), ...traceHeaders() }),
  } as OutboxRow;
}

/**
 * Writes an event to the outbox inside the caller's transaction: it is published (by OutboxRelay) if and only if
 * the transaction commits.
 */
export async function enqueueEvent<C extends Contract>(
  manager: Pick<EntityManager, 'query'>,
  contract: C,
  event: EventOf<C>,
  key: string,
): Promise<void> {
  await enqueueRows(manager, [outboxRow(contract, event, key)]);
}

/**
 * Writes rows to the outbox inside the caller's transaction, in one statement however many there are. The same
 * statement notifies OUTBOX_CHANNEL, so a relay in any process publishes them as soon as the transaction commits
 * (PostgreSQL delivers notifications on commit, never on rollback, and one per transaction however many rows it
 * wrote).
 */
export async function enqueueRows(
  manager: Pick<EntityManager, 'query'>,
  rows: readonly OutboxRow[],
): Promise<void> {
  if (rows.length === 0) return;
  await manager.query(
    `WITH rows AS (
       ${OUTBOX_INSERT}
       SELECT (r->>'eventId')::uuid, r->>'topic', r->>'key', (r->>'payload')::jsonb, (r->>'headers')::jsonb
       FROM jsonb_array_elements($1::jsonb) r RETURNING 1)
     SELECT pg_notify($2, '') WHERE EXISTS (SELECT 1 FROM rows)`,
    [JSON.stringify(rows), OUTBOX_CHANNEL],
  );
}

/**
 * Erasure: every event about this user held in the database, inside the transaction that erases the account: the
 * outbox rows (published or not) and the dead letters mirrored from Kafka. Every contract's payload names its user
 * as `userId`.
 */
export async function forgetUserEvents(manager: Pick<EntityManager, 'query'>, userId: string): Promise<void> {
  await manager.query(`DELETE FROM outbox WHERE payload->'payload'->>'userId' = $1`, [userId]);
  await manager.query(`DELETE FROM dead_letters WHERE user_id = $1`, [userId]);
}
