import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Chat (002 "Chat message"): a patient's messages, read newest first in token pages (keyset on
 * time and id, so page 500 costs what page 1 does), searched by trigram index, and archived up to
 * a date per patient. Attachments are rows of the files table (owner kind CHAT_MESSAGE).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE chat_messages (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      patient_id uuid NOT NULL,
      -- PATIENT (inbound) or USER; the receiver is the patient when a user writes.
      sender_type text NOT NULL,
      sender_id uuid,
      receiver_type text,
      receiver_id uuid,
      message text,
      external_id text NOT NULL,
      created_at timestamptz NOT NULL,
      deleted_at timestamptz,
      created_by uuid,
      created_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'chat_messages');
  await sql`CREATE INDEX chat_messages_patient_idx ON chat_messages (tenant_id, patient_id, created_at, id)`.execute(db);
  await sql`
    CREATE INDEX chat_messages_search_idx ON chat_messages USING gin (tenant_id, patient_id, lower(message) gin_trgm_ops)
  `.execute(db);

  // A patient's chat archived up to a date: messages until then are hidden unless asked for.
  await sql`
    CREATE TABLE chat_archives (
      tenant_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      archived_until timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      PRIMARY KEY (tenant_id, patient_id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'chat_archives');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE chat_archives`.execute(db);
  await sql`DROP TABLE chat_messages`.execute(db);
}
