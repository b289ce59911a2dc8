import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Files: the record of every stored blob (the bytes live in the blob store, never here), and the
 * queue of blobs to remove (replaced by jobs in 0009). A blob is queued by the write that deletes
 * its row (files/store.ts), in the same transaction, so none is removed while its row may still
 * roll back. (Until 0025 a trigger on `files` queued it; Citus refuses triggers on distributed
 * tables, and a delete now says what it removes.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE files (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      owner_kind text NOT NULL,
      owner_id uuid NOT NULL,
      patient_id uuid,
      original_name text NOT NULL,
      content_type text NOT NULL,
      size bigint NOT NULL,
      storage_key text NOT NULL,
      sha256 text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, storage_key),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'files');
  await sql`CREATE INDEX files_owner_idx ON files (tenant_id, owner_kind, owner_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX files_patient_idx ON files (tenant_id, patient_id) WHERE patient_id IS NOT NULL`.execute(db);

  await sql`
    CREATE TABLE file_removals (
      tenant_id uuid NOT NULL,
      storage_key text NOT NULL,
      queued_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, storage_key)
    )
  `.execute(db);
  await distributeByTenant(db, 'file_removals');
  await sql`CREATE INDEX file_removals_queued_idx ON file_removals (queued_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE files`.execute(db);
  // Made by 0025's down on a database that goes back past it.
  await sql`DROP FUNCTION IF EXISTS queue_file_removal()`.execute(db);
  await sql`DROP TABLE file_removals`.execute(db);
}
