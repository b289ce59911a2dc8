import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * SMS (002 "Message record", DECISIONS §7 and §8): sent through the two-step communication send,
 * or received, on a patient (or one of the patient's contacts); an inbound one from a number no
 * patient or contact has is UNRECOGNISED, with no patient. Attachments (MMS) are rows of the files
 * table (owner kind SMS). Every filter and sort of the list runs inside one patient's messages.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sms_messages (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid,
      contact_id uuid,
      direction text NOT NULL,
      status text NOT NULL,
      message text NOT NULL,
      parts integer NOT NULL,
      from_address text NOT NULL,
      to_address text NOT NULL,
      phone_id uuid,
      sender uuid,
      sender_type text NOT NULL,
      sender_name text,
      receiver uuid,
      receiver_type text NOT NULL,
      receiver_name text,
      care_team text,
      patient_info text,
      timezone text,
      scheduled_at timestamptz,
      sent_at timestamptz,
      received_at timestamptz,
      date timestamptz NOT NULL,
      external_id text,
      error_message text,
      starred boolean NOT NULL DEFAULT false,
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
  await distributeByTenant(db, 'sms_messages');
  await sql`CREATE INDEX sms_patient_date_idx ON sms_messages (tenant_id, patient_id, date, id)`.execute(db);
  await sql`CREATE INDEX sms_patient_created_idx ON sms_messages (tenant_id, patient_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX sms_patient_status_idx ON sms_messages (tenant_id, patient_id, status, date, id)`.execute(db);
  await sql`CREATE INDEX sms_external_idx ON sms_messages (tenant_id, external_id) WHERE external_id IS NOT NULL`.execute(db);
  await sql`
    CREATE INDEX sms_unrecognised_idx ON sms_messages (tenant_id, instance_id, date, id) WHERE patient_id IS NULL
  `.execute(db);
  // An inbound SMS or call finds a contact by number (patients' phones are indexed already).
  await sql`CREATE INDEX contacts_phone_idx ON contacts (tenant_id, instance_id, phone)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX contacts_phone_idx`.execute(db);
  await sql`DROP TABLE sms_messages`.execute(db);
}
