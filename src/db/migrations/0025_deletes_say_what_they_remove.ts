import { type Kysely, sql } from 'kysely';
import { isCitus } from '../distribution.ts';

/**
 * What a delete takes with it is said by the delete, not by the database, as Citus needs:
 * - the `files` trigger that queued a deleted row's blob goes: Citus refuses triggers on
 *   distributed tables; the writes that delete files rows queue their blobs (files/store.ts);
 * - the faxes' key to their patient no longer nulls `patient_id` on the patient's delete: Citus
 *   ignores the column list of `ON DELETE SET NULL (patient_id)` and would null `tenant_id`
 *   too; the patient's delete unlinks the faxes itself (the faxes area's `patientDeletion`).
 * Databases made since 0006 and 0019 were changed never had either; on those this re-makes the
 * faxes' key as it already is.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Citus refuses any trigger command on a distributed table, even one that finds nothing to drop.
  if (!(await isCitus(db))) await sql`DROP TRIGGER IF EXISTS files_queue_removal ON files`.execute(db);
  await sql`DROP FUNCTION IF EXISTS queue_file_removal()`.execute(db);
  await sql`ALTER TABLE faxes DROP CONSTRAINT faxes_tenant_id_patient_id_fkey`.execute(db);
  await sql`
    ALTER TABLE faxes ADD CONSTRAINT faxes_tenant_id_patient_id_fkey
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id)
  `.execute(db);
}

/** Back to what the code before this migration relied on; Citus never had it (it refuses both). */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (await isCitus(db)) return;
  await sql`ALTER TABLE faxes DROP CONSTRAINT faxes_tenant_id_patient_id_fkey`.execute(db);
  await sql`
    ALTER TABLE faxes ADD CONSTRAINT faxes_tenant_id_patient_id_fkey
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE SET NULL (patient_id)
  `.execute(db);
  await sql`
    CREATE FUNCTION queue_file_removal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO jobs (tenant_id, id, instance_id, kind, payload, state)
      VALUES (OLD.tenant_id, gen_random_uuid(), OLD.instance_id, 'files.remove',
              jsonb_build_object('storageKey', OLD.storage_key), 'QUEUED');
      RETURN OLD;
    END $$
  `.execute(db);
  await sql`
    CREATE TRIGGER files_queue_removal AFTER DELETE ON files
      FOR EACH ROW EXECUTE FUNCTION queue_file_removal()
  `.execute(db);
}
