import { type Kysely, sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { parameterBatches } from '../../db/batches.ts';
import type { DB, Row } from '../../db/schema.ts';
import { fullValue } from '../../records/json-body.ts';

/** Dictionary values, scoped by tenant, instance and dictionary name (index dictionary_records_idx). */

export type DictionaryRecordRow = Row<'dictionary_records'>;

export interface DictionaryInstance {
  tenantId: string;
  id: string;
}

function scoped(db: Kysely<DB>, instance: DictionaryInstance, name: string) {
  return db
    .selectFrom('dictionary_records')
    .where('tenant_id', '=', instance.tenantId)
    .where('instance_id', '=', instance.id)
    .where('dictionary_name', '=', name);
}

/** Every record of the dictionary, soft-deleted ones included, oldest first. */
export async function listDictionaryRecords(db: Kysely<DB>, instance: DictionaryInstance, name: string) {
  return scoped(db, instance, name).selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function findDictionaryRecord(
  db: Kysely<DB>,
  instance: DictionaryInstance,
  name: string,
  id: string,
): Promise<DictionaryRecordRow | undefined> {
  return scoped(db, instance, name).selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertDictionaryRecords(
  db: Kysely<DB>,
  instance: DictionaryInstance,
  name: string,
  records: Record<string, unknown>[],
): Promise<void> {
  const now = new Date();
  const rows = records.map((values) => ({
    tenant_id: instance.tenantId,
    instance_id: instance.id,
    // v7 ids grow in insert order, so records of one write list in the order they were sent.
    id: uuidv7(),
    dictionary_name: name,
    values: JSON.stringify(values),
    full_value: fullValue(values),
    deleted: false,
    created_at: now,
    updated_at: now,
  }));
  for (const batch of parameterBatches(rows)) await db.insertInto('dictionary_records').values(batch).execute();
}

/** Removes every record of the dictionary for good (001: PUT deletes the old records completely). */
export async function purgeDictionaryRecords(db: Kysely<DB>, instance: DictionaryInstance, name: string): Promise<void> {
  await db
    .deleteFrom('dictionary_records')
    .where('tenant_id', '=', instance.tenantId)
    .where('instance_id', '=', instance.id)
    .where('dictionary_name', '=', name)
    .execute();
}

export async function updateDictionaryRecord(
  db: Kysely<DB>,
  instance: DictionaryInstance,
  name: string,
  id: string,
  change: { values: Record<string, unknown> } | { deleted: true },
): Promise<DictionaryRecordRow | undefined> {
  return db
    .updateTable('dictionary_records')
    .set({
      ...('values' in change
        ? { values: JSON.stringify(change.values), full_value: fullValue(change.values) }
        : { deleted: change.deleted }),
      updated_at: new Date(),
    })
    .where('tenant_id', '=', instance.tenantId)
    .where('instance_id', '=', instance.id)
    .where('dictionary_name', '=', name)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Serialises the writers of one dictionary until the transaction ends, so two PUTs cannot interleave. */
export async function lockDictionary(db: Kysely<DB>, instance: DictionaryInstance, name: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`dictionary/${instance.tenantId}/${instance.id}/${name}`}, 0))`.execute(
    db,
  );
}
