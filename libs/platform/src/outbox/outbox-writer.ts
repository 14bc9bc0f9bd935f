import type { Contract, EventOf } from '@echoloop/contracts';
import type { EntityManager } from 'typeorm';
import { eventHeaders } from '../kafka/event-codec';

/** Announces committed outbox rows to every relay (OutboxRelay LISTENs on it). */
export const OUTBOX_CHANNEL = 'echoloop_outbox';

/**
 * Writes an event to the outbox inside the caller's transaction: it is published (by OutboxRelay) if and only if
 * the transaction commits. Validated here, so a bad event fails the write instead of reaching Kafka.
 *
 * The same statement notifies OUTBOX_CHANNEL, so a relay in any process publishes it as soon as the transaction
 * commits (PostgreSQL delivers notifications on commit, never on rollback, and sends one per transaction however
 * many events it wrote): one round trip, as the insert alone was.
 */
export async function enqueueEvent<C extends Contract>(
  manager: Pick<EntityManager, 'query'>,
  contract: C,
  event: EventOf<C>,
  key: string,
): Promise<void> {
  await enqueueRow(manager, outboxRow(contract, event, key));
}

/** enqueueEvent for an event already made into its outbox row (outboxRow). */
export async function enqueueRow(manager: Pick<EntityManager, 'query'>, row: OutboxRow): Promise<void> {
  await manager.query(
    `WITH row AS (INSERT INTO outbox ${OUTBOX_COLUMNS} VALUES ($1, $2, $3, $4, $5) RETURNING id)
     SELECT pg_notify($6, '') FROM row`,
    [row.eventId, row.topic, row.key, row.payload, row.headers, OUTBOX_CHANNEL],
  );
}

/** The columns of OutboxEntity (libs/persistence) an event fills, in the order of OutboxRow. */
export const OUTBOX_COLUMNS = '(event_id, topic, message_key, payload, headers)';

/** An event as the outbox stores it, validated, for a statement that writes it along with other rows. */
export interface OutboxRow {
  eventId: string;
  topic: string;
  key: string;
  /** The event as JSON text. */
  payload: string;
  headers: string;
}

export function outboxRow<C extends Contract>(contract: C, event: EventOf<C>, key: string): OutboxRow {
  const valid = contract.schema.parse(event);
  return {
    eventId: valid.eventId,
    topic: contract.topic,
    key,
    payload: JSON.stringify(valid),
    headers: JSON.stringify(eventHeaders(valid)),
  };
}

/**
 * Erasure: every outbox row about this user (published or not), inside the transaction that erases the account.
 * Every contract's payload names its user as `userId`.
 */
export async function forgetUserEvents(manager: Pick<EntityManager, 'query'>, userId: string): Promise<void> {
  await manager.query(`DELETE FROM outbox WHERE payload->'payload'->>'userId' = $1`, [userId]);
}
