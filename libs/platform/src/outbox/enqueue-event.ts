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
  const valid = contract.schema.parse(event);
  // The columns of OutboxEntity (libs/persistence).
  await manager.query(
    `WITH row AS (
       INSERT INTO outbox (event_id, topic, message_key, payload, headers) VALUES ($1, $2, $3, $4, $5) RETURNING id)
     SELECT pg_notify($6, '') FROM row`,
    [
      valid.eventId,
      contract.topic,
      key,
      JSON.stringify(valid),
      JSON.stringify(eventHeaders(valid)),
      OUTBOX_CHANNEL,
    ],
  );
}

/**
 * Erasure: every outbox row about this user (published or not), inside the transaction that erases the account.
 * Every contract's payload names its user as `userId`.
 */
export async function forgetUserEvents(manager: Pick<EntityManager, 'query'>, userId: string): Promise<void> {
  await manager.query(`DELETE FROM outbox WHERE payload->'payload'->>'userId' = $1`, [userId]);
}
