import { type Kysely, sql } from 'kysely';

/**
 * The patient a sandbox message is about, as the sending area knew it: the outbox shows patients'
 * addresses and message bodies, so its answers name the patients in the access log (and a purge
 * finds the patient's messages by id, not only by address). Null for messages of no patient.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sandbox_messages ADD COLUMN patient_id uuid`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sandbox_messages DROP COLUMN patient_id`.execute(db);
}
