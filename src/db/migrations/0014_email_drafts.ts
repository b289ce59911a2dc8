import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Email drafts (002 "Email draft"): a patient's drafts, or a contact's of the patient (then the
 * contact is the receiver). Attachments are rows of the files table (owner kind EMAIL_DRAFT).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE email_drafts (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid NOT NULL,
      contact_id uuid,
      subject text,
      body text,
      body_type text NOT NULL,
      email_editor_json jsonb,
      scheduled_at timestamptz,
      draft_date timestamptz,
      sender uuid,
      sender_name text,
      patient_email text,
      secure boolean NOT NULL DEFAULT false,
      attachments_from_template jsonb NOT NULL DEFAULT '[]',
      priority text NOT NULL,
      source text NOT NULL,
      template_name text,
      status text NOT NULL,
      starred boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'email_drafts');
  await sql`CREATE INDEX email_drafts_patient_idx ON email_drafts (tenant_id, patient_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX email_drafts_patient_updated_idx ON email_drafts (tenant_id, patient_id, updated_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE email_drafts;`.execute(db);
}
