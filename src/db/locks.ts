import { type Kysely, sql } from 'kysely';

/**
 * Serialises the transactions that name the same key, each waiting for the one before to end
 * (a transaction-scoped advisory lock: nothing to clean up, held across nodes by the database).
 * Keys start with the tenant id, so a distributed database keeps each lock on its tenant's node.
 */
export async function lockKey<DB>(trx: Kysely<DB>, key: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/** Takes the lock if no other transaction holds it (held until this one ends); answers whether it did. */
export async function tryLockKey<DB>(trx: Kysely<DB>, key: string): Promise<boolean> {
  const { rows } = await sql<{
    locked: boolean;
  }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) AS locked`.execute(trx);
  return rows[0]?.locked === true;
}

/**
 * Holds the key for the rest of the session (a connection of its own, not a transaction): an
 * operator's long command (a copy) against others of its kind. A process that dies lets go once
 * its server notices, after the statement it had in flight.
 */
export async function lockSession<DB>(connection: Kysely<DB>, key: string): Promise<void> {
  await sql`SELECT pg_advisory_lock(hashtextextended(${key}, 0))`.execute(connection);
}
