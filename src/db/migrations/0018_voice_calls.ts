import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Voice calls (002 "Voice call", DECISIONS §8): placed through the two-step communication send
 * (the member's phone, then the patient's), or received on an instance phone; a call from a number
 * no patient or contact has arrives unrecognized (`/unrecognized-patients/voice-calls`) until it
 * is assigned to a patient. Recordings are rows of the files table (owner kind VOICE_CALL).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE voice_calls (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid,
      contact_id uuid,
      direction text NOT NULL,
      status text NOT NULL,
      from_address text NOT NULL,
      to_address text NOT NULL,
      phone_id uuid,
      user_phone text,
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
      child_call_sid text,
      parent_call_status text,
      child_call_status text,
      parent_call_duration integer,
      child_call_duration integer,
      recorded boolean NOT NULL DEFAULT false,
      recording_duration integer,
      recording_sid text,
      recording_url text,
      error_message text,
      starred boolean NOT NULL DEFAULT false,
      message_type text NOT NULL,
      skip_event boolean NOT NULL DEFAULT false,
      -- Arrived from a number no patient or contact has; stays true once assigned.
      unrecognized boolean NOT NULL DEFAULT false,
      assigned_at timestamptz,
      assigned_by uuid,
      assigned_by_name text,
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
  await distributeByTenant(db, 'voice_calls');
  await sql`CREATE INDEX voice_calls_patient_date_idx ON voice_calls (tenant_id, patient_id, date, id)`.execute(db);
  await sql`
    CREATE INDEX voice_calls_external_idx ON voice_calls (tenant_id, external_id) WHERE external_id IS NOT NULL
  `.execute(db);
  // The unrecognized calls' list, newest first, and its assigned filter.
  await sql`
    CREATE INDEX voice_calls_unrecognized_idx ON voice_calls (tenant_id, instance_id, date, id) WHERE unrecognized
  `.execute(db);
  await sql`CREATE INDEX voice_calls_instance_date_idx ON voice_calls (tenant_id, instance_id, date, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE voice_calls;`.execute(db);
}
