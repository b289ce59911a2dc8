import type { Kysely } from 'kysely';
import { parameterBatches } from '../../db/batches.ts';
import { uuidv7 } from '../../db/ids.ts';
import { lockKey } from '../../db/locks.ts';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { fullValue } from '../../records/json-body.ts';

/** Dictionary values, scoped by tenant, instance and dictionary name (index dictionary_records_idx). */

export type { DictionaryRecordRow } from '../../records/store.ts';

function scoped(db: Kysely<DB>, scope: Scope, name: string) {
  return db
    .selectFrom('dictionary_records')
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('dictionary_name', '=', name);
}

/** Every record of the dictionary, soft-deleted ones included, oldest first. */
export async function listDictionaryRecords(db: Kysely<DB>, scope: Scope, name: string) {
  return scoped(db, scope, name).selectAll().orderBy('created_at').orderBy('id').execute();
}

export async function insertDictionaryRecords(
  db: Kysely<DB>,
  scope: Scope,
  name: string,
  records: Record<string, unknown>[],
  now: Date,
): Promise<void> {
  const rows = records.map((values) => ({
    tenant_id: scope.tenantId,
    instance_id: scope.instanceId,
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
export async function purgeDictionaryRecords(db: Kysely<DB>, scope: Scope, name: string): Promise<void> {
  await db
    .deleteFrom('dictionary_records')
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('dictionary_name', '=', name)
    .execute();
}

/** Serialises the writers of one dictionary until the transaction ends, so two PUTs cannot interleave. */
export async function lockDictionary(db: Kysely<DB>, scope: Scope, name: string): Promise<void> {
  await lockKey(db, `${scope.tenantId}/dictionary/${scope.instanceId}/${name}`);
}
