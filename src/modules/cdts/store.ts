import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import type { CdtRecordRow } from '../../records/store.ts';

/**
 * The generic CDT routes' own lookups (001 "Generic CDT record"); listing, sorting and bulk
 * changes are the records kernel's (src/records/list.ts). Every query is scoped by tenant,
 * instance, patient and type name.
 */

function scoped(db: Kysely<DB>, scope: Scope, patientId: string, cdtName: string) {
  return db
    .selectFrom('cdt_records as c')
    .where('c.tenant_id', '=', scope.tenantId)
    .where('c.instance_id', '=', scope.instanceId)
    .where('c.patient_id', '=', patientId)
    .where('c.cdt_name', '=', cdtName);
}

/** The records among `ids` (one query, for bulk checks). */
export async function findCdtRecords(
  db: Kysely<DB>,
  scope: Scope,
  patientId: string,
  cdtName: string,
  ids: string[],
): Promise<CdtRecordRow[]> {
  if (ids.length === 0) return [];
  return scoped(db, scope, patientId, cdtName).selectAll('c').where('c.id', 'in', ids).execute();
}

/** The id of one record of the type for this patient, if any (SINGLE_RECORD types). */
export async function firstCdtRecordId(
  db: Kysely<DB>,
  scope: Scope,
  patientId: string,
  cdtName: string,
): Promise<string | undefined> {
  const row = await scoped(db, scope, patientId, cdtName).select('c.id').limit(1).executeTakeFirst();
  return row?.id;
}
