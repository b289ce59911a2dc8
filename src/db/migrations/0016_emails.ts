import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Emails (002 "Email", DECISIONS §8): sent from a draft or received, on a patient (or one of the
 * patient's contacts); an inbound one from an address no patient or contact has is UNRECOGNISED,
 * with no patient. Attachments are rows of the files table (owner kind EMAIL). Every filter and
 * sort of the list runs inside one patient's emails, reached by an index that leads with it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE emails (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid,
      contact_id uuid,
      direction text NOT NULL,
      status text NOT NULL,
      subject text,
      body text,
      body_type text NOT NULL,
      secure boolean NOT NULL DEFAULT false,
      from_address text NOT NULL,
      to_address text NOT NULL,
      sender uuid,
      sender_type text NOT NULL,
      sender_name text,
      receiver uuid,
      receiver_type text NOT NULL,
      receiver_name text,
      -- Names as they were when the email was written (a message record is history).
      care_team text,
      patient_info text,
      timezone text,
      scheduled_at timestamptz,
      sent_at timestamptz,
      received_at timestamptz,
      -- When it goes or came: scheduledAt or the send's instant for outbound, receivedAt for inbound.
      date timestamptz NOT NULL,
      external_id text,
      error_message text,
      starred boolean NOT NULL DEFAULT false,
      priority text NOT NULL,
      source text NOT NULL,
      template_name text,
      message_type text NOT NULL,
      attachments_from_template jsonb NOT NULL DEFAULT '[]',
      skip_event boolean NOT NULL DEFAULT false,
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
  await distributeByTenant(db, 'emails');
  await sql`CREATE INDEX emails_patient_date_idx ON emails (tenant_id, patient_id, date, id)`.execute(db);
  await sql`CREATE INDEX emails_patient_created_idx ON emails (tenant_id, patient_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX emails_patient_updated_idx ON emails (tenant_id, patient_id, updated_at, id)`.execute(db);
  await sql`CREATE INDEX emails_patient_status_idx ON emails (tenant_id, patient_id, status, date, id)`.execute(db);
  // Text over subject and body, and the names, by substring (trigrams).
  await sql`
    CREATE INDEX emails_text_idx ON emails
      USING gin (tenant_id, patient_id, lower(coalesce(subject, '') || ' ' || coalesce(body, '')) gin_trgm_ops)
  `.execute(db);
  // A provider reports on a message by its own id.
  await sql`CREATE INDEX emails_external_idx ON emails (tenant_id, external_id) WHERE external_id IS NOT NULL`.execute(db);
  // Inbound emails with no patient, newest first.
  await sql`
    CREATE INDEX emails_unrecognised_idx ON emails (tenant_id, instance_id, date, id) WHERE patient_id IS NULL
  `.execute(db);
  // An inbound email finds its patient's contact by address (patients' addresses are indexed already).
  await sql`CREATE INDEX contacts_email_lower_idx ON contacts (tenant_id, instance_id, lower(email))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX contacts_email_lower_idx`.execute(db);
  await sql`DROP TABLE emails`.execute(db);
}
