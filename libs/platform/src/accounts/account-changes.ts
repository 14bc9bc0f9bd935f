import type { EntityManager } from 'typeorm';

/** The PostgreSQL channel on which every change to an account's power is announced to every replica. */
export const ACCOUNT_CHANGES_CHANNEL = 'echoloop_account_changes';

/**
 * Call inside the transaction that changes an account's power (roles, disabled, deleted, sessions revoked):
 * PostgreSQL delivers the notification to every listening replica when the transaction commits, and never when it
 * rolls back.
 */
export async function notifyAccountChanged(tx: Pick<EntityManager, 'query'>, userId: string): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [ACCOUNT_CHANGES_CHANNEL, userId]);
}
