import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Faxes (002 "Fax", DECISIONS §8): drafts written, given files and sent (DRAFT → QUEUED → SENDING
 * → SENT → DELIVERED or FAILED), and faxes received (RECEIVED, to be reviewed). Files are rows of
 * the files table (owner kind FAX). Numbers are kept in E.164 and as digits, which the list's
 * filters take (002: without the plus). A patient's delete unlinks its faxes itself (the faxes
 * area's `patientDeletion`): a key that nulls `patient_id` on delete would null `tenant_id` with it
 * on Citus, which refuses it (until 0025, `ON DELETE SET NULL (patient_id)` did).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE faxes (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      direction text NOT NULL,
      status text NOT NULL,
      original_status text,
      status_message text,
      external_id text,
      from_number text,
      to_number text,
      subject text,
      high_quality boolean NOT NULL DEFAULT false,
      patient_id uuid,
      reviewed boolean,
      received_at timestamptz,
      sent_at timestamptz,
      sent_by uuid,
      sent_by_name text,
      pages integer,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'faxes');
  await sql`CREATE INDEX faxes_created_idx ON faxes (tenant_id, instance_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX faxes_status_idx ON faxes (tenant_id, instance_id, status, created_at, id)`.execute(db);
  await sql`
    CREATE INDEX faxes_patient_idx ON faxes (tenant_id, patient_id, created_at, id) WHERE patient_id IS NOT NULL
  `.execute(db);
  await sql`
    CREATE INDEX faxes_received_idx ON faxes (tenant_id, instance_id, received_at, id) WHERE received_at IS NOT NULL
  `.execute(db);
  await sql`CREATE INDEX faxes_from_idx ON faxes (tenant_id, instance_id, from_number)`.execute(db);
  await sql`CREATE INDEX faxes_to_idx ON faxes (tenant_id, instance_id, to_number)`.execute(db);
  await sql`CREATE INDEX faxes_sent_by_idx ON faxes (tenant_id, instance_id, sent_by)`.execute(db);
  await sql`CREATE INDEX faxes_external_idx ON faxes (tenant_id, external_id) WHERE external_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX faxes_subject_idx ON faxes USING gin (tenant_id, instance_id, lower(subject) gin_trgm_ops)`.execute(db);
  await sql`
    CREATE INDEX faxes_sent_by_name_idx ON faxes USING gin (tenant_id, instance_id, lower(sent_by_name) gin_trgm_ops)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE faxes;`.execute(db);
}
