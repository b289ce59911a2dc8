import { type Kysely, sql } from 'kysely';

/**
 * DECISIONS §8: `sort` works on any scalar field, free-text `notes` too. Notes run to 10,000
 * characters, past what a btree entry holds, so they sort (and are indexed) by their first 200
 * characters; equal prefixes fall back to the id like every other sort.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX patients_notes_idx ON patients (tenant_id, instance_id, left(notes, 200), id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX patients_notes_idx`.execute(db);
}
