import { type Kysely, sql } from 'kysely';

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
    );
    CREATE INDEX chat_messages_patient_idx ON chat_messages (tenant_id, patient_id, created_at, id);
    CREATE INDEX chat_messages_search_idx ON chat_messages USING gin (tenant_id, patient_id, lower(message) gin_trgm_ops);

    -- A patient's chat archived up to a date: messages until then are hidden unless asked for.
    CREATE TABLE chat_archives (
      tenant_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      archived_until timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      PRIMARY KEY (tenant_id, patient_id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE chat_archives; DROP TABLE chat_messages;`.execute(db);
}
