import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * The access log (http/access-log.ts): one row per answer that disclosed patient data (or was
 * refused on a patient's record), written before the answer is sent. `access_log_patients` holds
 * one row per patient of that answer, keyed for "everyone who saw patient P", newest first; the
 * actor index answers "everything caller C saw". Neither references patients: the log outlives the
 * records it speaks of.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE access_log (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      occurred_at timestamptz NOT NULL,
      instance_id uuid,
      actor_type text NOT NULL,
      actor_id uuid,
      actor_name text,
      on_behalf_of text,
      client_address text,
      request_id text,
      operation text NOT NULL,
      resource_type text NOT NULL,
      patient_ids uuid[] NOT NULL,
      record_ids text[],
      outcome smallint NOT NULL,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'access_log');
  await sql`CREATE INDEX access_log_time_idx ON access_log (tenant_id, occurred_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX access_log_actor_idx ON access_log (tenant_id, actor_id, occurred_at DESC, id DESC)`.execute(db);
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
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE access_log_patients`.execute(db);
  await sql`DROP TABLE access_log`.execute(db);
}
