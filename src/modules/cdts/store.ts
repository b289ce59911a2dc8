import { type Kysely, type SqlBool, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import type { Writing } from '../../events/work.ts';
import { applySort, offsetOf, type Paging, type SortKey } from '../../http/pagination.ts';
import { type CdtRecordRow, withoutNulls } from '../../records/store.ts';

/**
 * The CDT record queries beyond the kernel's one-record writes (001 "Generic CDT record"): the
 * wire view, the list with its filters and sorts, and the bulk change in one statement. Every
 * query is scoped by tenant, instance, patient and type name.
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

/** Sort keys of a type's list: the two timestamps (indexed), and each custom field by its value. */
export function sortableCdtFields(fieldNames: readonly string[]): Record<string, string> {
  const sortable: Record<string, string> = { createdAt: 'c.created_at', updatedAt: 'c.updated_at' };
  // Field names come from the formation, never from the request; quoted anyway.
  for (const name of fieldNames) sortable[name] = `(c.values -> '${name.replaceAll("'", "''")}')`;
  return sortable;
}

export interface CdtListOptions {
  paging: Paging;
  sort: SortKey[];
  /** Each object must be contained in the record's values (`values @> ...`, served by the GIN index). */
  contains?: Record<string, unknown>[];
  /** created_at at or after. */
  createdFrom?: Date;
  /** created_at before. */
  createdBefore?: Date;
  sourceId?: string;
}

/** One page of a patient's records of a type; newest first unless sorted. */
export async function listCdtRecords(
  db: Kysely<DB>,
  scope: Scope,
  patientId: string,
  cdtName: string,
  options: CdtListOptions,
): Promise<{ rows: CdtRecordRow[]; total: number }> {
  let query = scoped(db, scope, patientId, cdtName);
  for (const condition of options.contains ?? []) {
    query = query.where(sql<SqlBool>`c.values @> ${JSON.stringify(condition)}::jsonb`);
  }
  if (options.createdFrom) query = query.where('c.created_at', '>=', options.createdFrom);
  if (options.createdBefore) query = query.where('c.created_at', '<', options.createdBefore);
  if (options.sourceId) query = query.where('c.source_id', '=', options.sourceId);
  const keys: SortKey[] = options.sort.length > 0 ? options.sort : [{ column: 'c.created_at', direction: 'desc' }];
  // Records written in the same millisecond follow their v7 ids, in the direction of the last key.
  const tieBreaker: SortKey = { column: 'c.id', direction: keys[keys.length - 1]!.direction };
  const [rows, count] = await Promise.all([
    applySort(query.selectAll('c'), [...keys, tieBreaker], [], 'c.id')
      .limit(options.paging.size)
      .offset(offsetOf(options.paging))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export interface CdtValuesChange {
  id: string;
  /** Fields to set; a null removes the field. Fields not listed keep their values. */
  values: Record<string, unknown>;
}

/**
 * Applies partial value changes to several records in one statement; answers the updated rows
 * (records that no longer exist are simply absent). Ids must be distinct.
 */
export async function updateCdtRecordValues(
  w: Writing,
  scope: Scope,
  patientId: string,
  cdtName: string,
  version: number | null,
  changes: CdtValuesChange[],
): Promise<CdtRecordRow[]> {
  const { actor } = w;
  if (changes.length === 0) return [];
  const payload = changes.map((change) => ({
    id: change.id,
    patch: withoutNulls(change.values),
    removed: Object.keys(change.values).filter((key) => change.values[key] === null),
  }));
  const result = await sql<CdtRecordRow>`
    UPDATE cdt_records AS c
    SET values = (c.values || u.patch) - u.removed,
        version = ${version},
        updated_at = ${w.now},
        updated_by = ${actor.id},
        updated_by_name = ${actor.name}
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS u(id uuid, patch jsonb, removed text[])
    WHERE c.tenant_id = ${scope.tenantId}
      AND c.instance_id = ${scope.instanceId}
      AND c.patient_id = ${patientId}
      AND c.cdt_name = ${cdtName}
      AND c.id = u.id
    RETURNING c.*`.execute(w.db);
  return result.rows;
}
