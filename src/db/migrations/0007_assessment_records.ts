import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Assessment records (001 "Assessment record", DECISIONS §7): a patient's answers to an
 * assessment of the formation, with their scoring and completion. They go with their patient.
 * The list is always one patient's, filtered by status and sorted by a timestamp: each of those
 * has an index leading with the tenant and the patient.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE assessment_records (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid NOT NULL,
      assessment_name text NOT NULL,
      assessment_title text,
      status text NOT NULL CHECK (status IN ('NEW', 'IN_PROGRESS', 'COMPLETED')),
      version integer NOT NULL DEFAULT 1,
      pfa boolean NOT NULL DEFAULT false,
      template_exists boolean NOT NULL DEFAULT false,
      answers jsonb NOT NULL DEFAULT '{}',
      questions jsonb NOT NULL DEFAULT '[]',
      scoring jsonb NOT NULL DEFAULT '{}',
      folder_id text,
      expiration_date timestamptz,
      encounter_id uuid,
      external_guid uuid NOT NULL,
      finalized_date timestamptz,
      completed_by uuid,
      completed_by_name text,
      completed_version integer,
      recompleted_by uuid,
      recompleted_by_name text,
      recompleted_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'assessment_records');
  await sql`
    CREATE INDEX assessment_records_patient_idx ON assessment_records (tenant_id, patient_id, created_at, id)
  `.execute(db);
  await sql`
    CREATE INDEX assessment_records_status_idx ON assessment_records (tenant_id, patient_id, status, created_at, id)
  `.execute(db);
  await sql`
    CREATE INDEX assessment_records_updated_idx ON assessment_records (tenant_id, patient_id, updated_at, id)
  `.execute(db);
  await sql`
    CREATE INDEX assessment_records_finalized_idx ON assessment_records (tenant_id, patient_id, finalized_date, id)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE assessment_records`.execute(db);
}
