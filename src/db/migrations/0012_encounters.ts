import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Encounters (002 "Encounter"): CDT records of `__encounter__`, with their dispositions and
 * assessment links (CDT records whose source is the encounter) and comments (their own table).
 * The instance-wide and per-user lists get partial indexes on the encounter records: by creation
 * and update, and by owner and active user; a patient's list uses the CDT patient index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX cdt_records_encounters_created_idx ON cdt_records (tenant_id, instance_id, created_at, id)
      WHERE cdt_name = '__encounter__'
  `.execute(db);
  await sql`
    CREATE INDEX cdt_records_encounters_updated_idx ON cdt_records (tenant_id, instance_id, updated_at, id)
      WHERE cdt_name = '__encounter__'
  `.execute(db);
  await sql`
    CREATE INDEX cdt_records_encounters_owner_idx ON cdt_records (tenant_id, instance_id, (values ->> 'ownerUserId'), created_at, id)
      WHERE cdt_name = '__encounter__'
  `.execute(db);
  await sql`
    CREATE INDEX cdt_records_encounters_active_idx ON cdt_records (tenant_id, instance_id, (values ->> 'activeUserId'), created_at, id)
      WHERE cdt_name = '__encounter__'
  `.execute(db);

  await sql`
    CREATE TABLE encounter_comments (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      encounter_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      text text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, encounter_id) REFERENCES cdt_records (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'encounter_comments');
  await sql`
    CREATE INDEX encounter_comments_encounter_idx ON encounter_comments (tenant_id, encounter_id, created_at, id)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE encounter_comments`.execute(db);
  await sql`DROP INDEX cdt_records_encounters_active_idx`.execute(db);
  await sql`DROP INDEX cdt_records_encounters_owner_idx`.execute(db);
  await sql`DROP INDEX cdt_records_encounters_updated_idx`.execute(db);
  await sql`DROP INDEX cdt_records_encounters_created_idx`.execute(db);
}
