import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * FHIR Bulk Data 2.0 `$export` (docs/fhir-bulk-export.md): an export, asked for at kick-off and
 * walked by a job, and its NDJSON files, each in the blob store and naming the patients it holds
 * (their download is recorded in the access log with them). The export keeps the walk's place (the
 * source it reads and the last id written), so a job that dies resumes after its last file. Both
 * tables are the tenant's, tenant first in every key; a file goes with its export.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE fhir_exports (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      status text NOT NULL,
      level text NOT NULL,
      request text NOT NULL,
      sources text[] NOT NULL,
      permissions text[] NOT NULL,
      since timestamptz,
      transaction_time timestamptz NOT NULL,
      source_index integer NOT NULL,
      after_id uuid,
      files integer NOT NULL,
      resources bigint NOT NULL,
      error text,
      requested_by uuid,
      requested_by_name text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      completed_at timestamptz,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'fhir_exports');
  // A caller's exports in progress, counted at each kick-off (CAIRN_FHIR_EXPORT_MAX_RUNNING).
  await sql`
    CREATE INDEX fhir_exports_running_idx ON fhir_exports (tenant_id, instance_id, requested_by)
    WHERE status = 'IN_PROGRESS'
  `.execute(db);
  await sql`
    CREATE TABLE fhir_export_files (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      export_id uuid NOT NULL,
      id uuid NOT NULL,
      seq integer NOT NULL,
      type text NOT NULL,
      permission text NOT NULL,
      storage_key text NOT NULL,
      resources integer NOT NULL,
      size bigint NOT NULL,
      sha256 text NOT NULL,
      patient_ids uuid[] NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, export_id, seq),
      FOREIGN KEY (tenant_id, export_id) REFERENCES fhir_exports (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'fhir_export_files');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE fhir_export_files`.execute(db);
  await sql`DROP TABLE fhir_exports`.execute(db);
}
