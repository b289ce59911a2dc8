import { type Kysely, sql } from 'kysely';
import { referenceTable } from '../distribution.ts';

/**
 * Holds on the file store's removals (files/holds.ts): while a backup copies the blobs of the
 * file rows in its snapshot, no blob is removed, so every row it saw keeps its bytes. Global (a
 * backup is the whole installation's), so a reference table on Citus; a hold ends by itself at
 * `held_until` if its backup died.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE blob_holds (
      id uuid PRIMARY KEY,
      reason text NOT NULL,
      held_until timestamptz NOT NULL
    )
  `.execute(db);
  await referenceTable(db, 'blob_holds');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE blob_holds`.execute(db);
}
