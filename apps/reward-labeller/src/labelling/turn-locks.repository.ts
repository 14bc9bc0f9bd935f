import type { EntityManager } from 'typeorm';

/**
 * Serialises everything done to these turn ids, whether their rows exist yet or not, until the transaction ends:
 * whoever records, finishes or gives feedback on a turn takes its lock first. Taken in sorted order, so two
 * transactions locking overlapping turns cannot deadlock.
 */
export async function lockTurns(tx: EntityManager, turnIds: readonly string[]): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended(id, 5310)) FROM unnest($1::text[]) id`, [
    [...turnIds].sort(),
  ]);
}
