import { type Kysely, type SqlBool, sql } from 'kysely';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';
import type { DB, Row } from '../../db/schema.ts';
import type { Actor } from '../../events/audit.ts';
import { createdStamp, updatedStamp } from '../../events/audit.ts';
import { applySort, offsetOf, type Paging, type SortKey } from '../../http/pagination.ts';
import { jsonBody } from '../../records/json-body.ts';

/**
 * The generic CDT record store (001 "Generic CDT record"): the formation's custom data types
 * and the system types other areas keep as CDT records (`_document_summary`, `__encounter__`,
 * `__encounter_disposition__`, ...). It knows nothing of the formation: callers check values.
 * Every query is scoped by tenant, instance, patient and type name.
 */

export type CdtRecordRow = Row<'cdt_records'>;

/** Where records live: an instance of a tenant (an `Instance` fits). */
export interface CdtInstance {
  tenantId: string;
  id: string;
}

/** What created a record, shown as jsonBody `source_type`/`source_id`/`source_name`. */
export interface RecordSource {
  type: string;
  id: string;
  name: string;
}

/** Fixed namespace of `cdtId`: the same type in the same instance always has the same id. */
export const CDT_ID_NAMESPACE = '3043093b-16d6-49b1-b38a-cfc9e4d49417';

export function cdtIdOf(instanceId: string, cdtName: string): string {
  return uuidv5(`${instanceId}/${cdtName}`, CDT_ID_NAMESPACE);
}

/** The wire record: `{id, patientId, cdtId, version, jsonBody, cdtName}`, cdtName last (PROD-SHAPES). */
export interface CdtRecordView {
  id: string;
  patientId: string;
  cdtId: string;
  version: number | null;
  jsonBody: Record<string, unknown>;
  cdtName: string;
}

/**
 * A row as the API shows it. `fieldNames` are the type's fields (null when unset); with `only`,
 * jsonBody carries the system keys and just those custom fields.
 */
export function cdtRecordView(row: CdtRecordRow, fieldNames: readonly string[], only?: readonly string[]): CdtRecordView {
  const values = row.values as Record<string, unknown>;
  const shown = only
    ? Object.fromEntries(only.filter((name) => Object.hasOwn(values, name)).map((name) => [name, values[name]]))
    : values;
  return {
    id: row.id,
    patientId: row.patient_id,
    cdtId: cdtIdOf(row.instance_id, row.cdt_name),
    version: row.version,
    jsonBody: jsonBody(row, only ?? fieldNames, shown),
    cdtName: row.cdt_name,
  };
}

function scoped(db: Kysely<DB>, instance: CdtInstance, patientId: string, cdtName: string) {
  return db
    .selectFrom('cdt_records as c')
    .where('c.tenant_id', '=', instance.tenantId)
    .where('c.instance_id', '=', instance.id)
    .where('c.patient_id', '=', patientId)
    .where('c.cdt_name', '=', cdtName);
}

/** Values are stored without nulls: an unset field and a cleared one read the same (null). */
function withoutNulls(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && value !== undefined));
}

export interface NewCdtRecord {
  values: Record<string, unknown>;
  /** The formation version the record is written under (null for types outside the formation). */
  version: number | null;
  source?: RecordSource;
  externalId?: string | null;
  /** A caller that must know the id before the insert (e.g. for file keys) can give it. */
  id?: string;
}

export async function insertCdtRecord(
  db: Kysely<DB>,
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
  actor: Actor,
  record: NewCdtRecord,
): Promise<CdtRecordRow> {
  const now = new Date();
  return db
    .insertInto('cdt_records')
    .values({
      tenant_id: instance.tenantId,
      instance_id: instance.id,
      id: record.id ?? uuidv7(),
      patient_id: patientId,
      cdt_name: cdtName,
      version: record.version,
      values: JSON.stringify(withoutNulls(record.values)),
      external_guid: uuidv7(),
      external_id: record.externalId ?? null,
      source_type: record.source?.type ?? null,
      source_id: record.source?.id ?? null,
      source_name: record.source?.name ?? null,
      ...createdStamp(actor, now),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findCdtRecord(
  db: Kysely<DB>,
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
  id: string,
): Promise<CdtRecordRow | undefined> {
  return scoped(db, instance, patientId, cdtName).selectAll('c').where('c.id', '=', id).executeTakeFirst();
}

/** The records among `ids` (one query, for bulk checks). */
export async function findCdtRecords(
  db: Kysely<DB>,
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
  ids: string[],
): Promise<CdtRecordRow[]> {
  if (ids.length === 0) return [];
  return scoped(db, instance, patientId, cdtName).selectAll('c').where('c.id', 'in', ids).execute();
}

/** The id of one record of the type for this patient, if any (SINGLE_RECORD types). */
export async function firstCdtRecordId(
  db: Kysely<DB>,
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
): Promise<string | undefined> {
  const row = await scoped(db, instance, patientId, cdtName).select('c.id').limit(1).executeTakeFirst();
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
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
  options: CdtListOptions,
): Promise<{ rows: CdtRecordRow[]; total: number }> {
  let query = scoped(db, instance, patientId, cdtName);
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
  db: Kysely<DB>,
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
  actor: Actor,
  version: number | null,
  changes: CdtValuesChange[],
): Promise<CdtRecordRow[]> {
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
        updated_at = ${new Date()},
        updated_by = ${actor.id},
        updated_by_name = ${actor.name}
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS u(id uuid, patch jsonb, removed text[])
    WHERE c.tenant_id = ${instance.tenantId}
      AND c.instance_id = ${instance.id}
      AND c.patient_id = ${patientId}
      AND c.cdt_name = ${cdtName}
      AND c.id = u.id
    RETURNING c.*`.execute(db);
  return result.rows;
}

/** Replaces a record's values whole (for types whose writes are full, such as document summaries). */
export async function replaceCdtRecordValues(
  db: Kysely<DB>,
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
  actor: Actor,
  version: number | null,
  id: string,
  values: Record<string, unknown>,
): Promise<CdtRecordRow | undefined> {
  return db
    .updateTable('cdt_records')
    .set({
      values: JSON.stringify(withoutNulls(values)),
      version,
      ...updatedStamp(actor),
    })
    .where('tenant_id', '=', instance.tenantId)
    .where('instance_id', '=', instance.id)
    .where('patient_id', '=', patientId)
    .where('cdt_name', '=', cdtName)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes a record; answers it, or undefined when there was none. */
export async function deleteCdtRecord(
  db: Kysely<DB>,
  instance: CdtInstance,
  patientId: string,
  cdtName: string,
  id: string,
): Promise<CdtRecordRow | undefined> {
  return db
    .deleteFrom('cdt_records')
    .where('tenant_id', '=', instance.tenantId)
    .where('instance_id', '=', instance.id)
    .where('patient_id', '=', patientId)
    .where('cdt_name', '=', cdtName)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Whether the patient is one of this instance; if so it is locked against deletion until the
 * transaction ends, so an insert cannot fail on the foreign key.
 */
export async function lockPatientForRecords(db: Kysely<DB>, instance: CdtInstance, patientId: string): Promise<boolean> {
  const row = await db
    .selectFrom('patients')
    .select('id')
    .where('tenant_id', '=', instance.tenantId)
    .where('instance_id', '=', instance.id)
    .where('id', '=', patientId)
    .forKeyShare()
    .executeTakeFirst();
  return row !== undefined;
}

/** Serialises writers of one patient's records of one type until the transaction ends (SINGLE_RECORD). */
export async function lockPatientType(db: Kysely<DB>, instance: CdtInstance, patientId: string, cdtName: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cdt/${instance.tenantId}/${patientId}/${cdtName}`}, 0))`.execute(db);
}
