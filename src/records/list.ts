import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Scope } from '../db/scope.ts';
import type { Writing } from '../events/work.ts';
import { filteredPage, type Paging, type SortKey } from '../http/pagination.ts';
import { type CdtRecordRow, withoutNulls } from './store.ts';

/**
 * The kernel's lists and bulk changes of CDT records, for every area storing them (the
 * formation's CDTs, document summaries, encounters): filters, sorts and a page with its total in
 * one statement. Every query names the tenant, the instance and the type; a patient's list also
 * the patient. Rows are aliased `c`, for the conditions and sort keys areas add.
 */

/** Sort keys of a type's list: the two timestamps (indexed), and each custom field by its value. */
export function sortableRecordFields(fieldNames: readonly string[]): Record<string, string> {
  const sortable: Record<string, string> = { createdAt: 'c.created_at', updatedAt: 'c.updated_at' };
  // Field names come from the formation, never from the request; quoted anyway.
  for (const name of fieldNames) sortable[name] = `(c.values -> '${name.replaceAll("'", "''")}')`;
  return sortable;
}

export interface RecordListQuery {
  cdtName: string;
  /** A patient's records; the instance's otherwise. */
  patientId?: string | undefined;
  paging: Paging;
  /** Default: newest first. */
  sort: SortKey[];
  /** Each object must be contained in the record's values (`values @> ...`, served by the GIN index). */
  contains?: Record<string, unknown>[];
  /** A text field of the values among these (`status` in DRAFT, OPEN). */
  valueIn?: { field: string; values: string[] }[];
  /** created_at at or after. */
  createdFrom?: Date | undefined;
  /** created_at before. */
  createdBefore?: Date | undefined;
  sourceId?: string | undefined;
  /** An area's own conditions on `c` (an encounter's owner, a care team). */
  where?: RawBuilder<SqlBool>[];
}

/** The records a list query selects, aliased `c`, before any select (an area composing its own statement starts here). */
export function filteredRecords(db: Kysely<DB>, scope: Scope, query: Omit<RecordListQuery, 'paging' | 'sort'>) {
  let select = db
    .selectFrom('cdt_records as c')
    .where('c.tenant_id', '=', scope.tenantId)
    .where('c.instance_id', '=', scope.instanceId)
    .where('c.cdt_name', '=', query.cdtName);
  if (query.patientId) select = select.where('c.patient_id', '=', query.patientId);
  for (const condition of query.contains ?? []) {
    select = select.where(sql<SqlBool>`c.values @> ${JSON.stringify(condition)}::jsonb`);
  }
  for (const { field, values } of query.valueIn ?? []) {
    select = select.where(sql<SqlBool>`c.values ->> ${field} = ANY(${values}::text[])`);
  }
  if (query.createdFrom) select = select.where('c.created_at', '>=', query.createdFrom);
  if (query.createdBefore) select = select.where('c.created_at', '<', query.createdBefore);
  if (query.sourceId) select = select.where('c.source_id', '=', query.sourceId);
  for (const condition of query.where ?? []) select = select.where(condition);
  return select;
}

/** Newest first; records written in the same millisecond follow their v7 ids, in the direction of the last key. */
export const recordOrder = { fallback: [{ column: 'c.created_at', direction: 'desc' as const }], tieBreaker: 'c.id' };

/** One page of records and the total, in one statement (the shared `filteredPage`); newest first unless sorted. */
export function listRecordPage(
  db: Kysely<DB>,
  scope: Scope,
  query: RecordListQuery,
): Promise<{ rows: CdtRecordRow[]; total: number }> {
  const list = {
    base: filteredRecords(db, scope, query) as never,
    table: 'cdt_records',
    alias: 'c',
    tenantId: scope.tenantId,
    searched: false,
  };
  const order = { keys: query.sort, ...recordOrder };
  return filteredPage<CdtRecordRow>(db as Kysely<never>, list, order, query.paging);
}

export interface RecordValuesChange {
  id: string;
  /** Fields to set; a null removes the field. Fields not listed keep their values. */
  values: Record<string, unknown>;
}

/**
 * Applies partial value changes to several records of a patient in one statement; answers the
 * updated rows (records that no longer exist are simply absent). Ids must be distinct.
 */
export async function updateRecordValues(
  w: Writing,
  scope: Scope,
  patientId: string,
  cdtName: string,
  version: number | null,
  changes: RecordValuesChange[],
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
