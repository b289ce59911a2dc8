import { type Kysely, sql } from 'kysely';

/**
 * A bulk export kicked off by an app's token confined to one patient (a `patient/` scope) keeps
 * that patient: its job, which runs without the token, searches that patient's compartment only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE fhir_exports ADD COLUMN compartment uuid`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE fhir_exports DROP COLUMN compartment`.execute(db);
}
