import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * "Everyone who saw patient P" is served by a GIN index on the records' own `patient_ids` instead of
 * a row per patient in access_log_patients. A page naming 500 patients wrote 500 rows and 500 keys
 * (about 90 KiB, most of its answer's cost); now it adds 500 entries to the index's pending list,
 * merged in bulk in the background (fastupdate), and the patients are no longer written twice. The
 * table goes: every row of it is in `patient_ids`, which the hash chain covers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX access_log_patient_idx ON access_log USING gin (patient_ids)`.execute(db);
  await sql`DROP TABLE access_log_patients`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE access_log_patients (
      tenant_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      occurred_at timestamptz NOT NULL,
      access_id uuid NOT NULL,
      PRIMARY KEY (tenant_id, patient_id, occurred_at, access_id)
    )
  `.execute(db);
  await distributeByTenant(db, 'access_log_patients');
  await sql`
    INSERT INTO access_log_patients
    SELECT tenant_id, unnest(patient_ids), occurred_at, id FROM access_log
  `.execute(db);
  await sql`DROP INDEX access_log_patient_idx`.execute(db);
}
