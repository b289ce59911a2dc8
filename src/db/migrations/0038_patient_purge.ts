import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Purging a patient (docs/patient-purge.md): a purge, asked for over the API and run by a job,
 * with what it kept and why. Its row names the patient's id only, never their data.
 *
 * An invoice is kept by a purge (legal retention), so it no longer goes with its patient's row:
 * the key that cascaded it is dropped, and the patient's delete removes invoices itself (the
 * invoices area's `patientData`), as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE patient_purges (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid NOT NULL,
      status text NOT NULL,
      kept jsonb NOT NULL,
      requested_by uuid,
      requested_by_name text,
      created_at timestamptz NOT NULL,
      completed_at timestamptz,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'patient_purges');
  // A second request for a patient's purge answers the one already queued.
  await sql`CREATE INDEX patient_purges_patient_idx ON patient_purges (tenant_id, patient_id, created_at)`.execute(db);
  await sql`ALTER TABLE invoices DROP CONSTRAINT invoices_tenant_id_patient_id_fkey`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Invoices a purge kept have no patient to point to: they go before the key comes back.
  await sql`
    DELETE FROM invoices i
    WHERE NOT EXISTS (SELECT 1 FROM patients p WHERE p.tenant_id = i.tenant_id AND p.id = i.patient_id)
  `.execute(db);
  await sql`
    ALTER TABLE invoices ADD CONSTRAINT invoices_tenant_id_patient_id_fkey
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
  `.execute(db);
  await sql`DROP TABLE patient_purges`.execute(db);
}
