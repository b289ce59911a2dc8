import { type Kysely, sql } from 'kysely';

/**
 * What a kept answer showed, for the access log: its patients and records as its first sending
 * named them (the handler's, the matches its total stood for), so a replay under Idempotency-Key
 * is recorded with the same patients even when the handler would no longer name them (the patient
 * deleted since, the write meeting the key before the handler names anyone). Null for answers
 * that show no patient data.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE idempotency_keys ADD COLUMN answer_shows jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE idempotency_keys DROP COLUMN answer_shows`.execute(db);
}
