import type { Contract, EventOf } from '@echoloop/contracts';
import { OutboxEntity } from '@echoloop/persistence';
import type { EntityManager } from 'typeorm';
import { eventHeaders } from '../kafka/event-codec';

/**
 * Writes an event to the outbox inside the caller's transaction: it is published (by OutboxRelay) if and only if
 * the transaction commits. Validated here, so a bad event fails the write instead of reaching Kafka.
 */
export async function enqueueEvent<C extends Contract>(
  manager: EntityManager,
  contract: C,
  event: EventOf<C>,
  key: string,
): Promise<void> {
  const valid = contract.schema.parse(event);
  await manager.getRepository(OutboxEntity).insert({
    eventId: valid.eventId,
    topic: contract.topic,
    messageKey: key,
    payload: valid as never, // a validated event is plain JSON; TypeORM's deep-partial type cannot see that
    headers: eventHeaders(valid),
  });
}

/**
 * Erasure: every outbox row about this user (published or not), inside the transaction that erases the account.
 * Every contract's payload names its user as `userId`.
 */
export async function forgetUserEvents(manager: Pick<EntityManager, 'query'>, userId: string): Promise<void> {
  await manager.query(`DELETE FROM outbox WHERE payload->'payload'->>'userId' = $1`, [userId]);
}
