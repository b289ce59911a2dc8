import type { Kysely } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import { uuidv7 } from '../db/ids.ts';
import type { DB, Row } from '../db/schema.ts';
import type { Scope } from '../db/scope.ts';
import type { Writing } from '../events/work.ts';
import { fullValue } from './json-body.ts';
import type { RecordKind } from './types.ts';

/**
 * Where each kind of record is stored: CDT records (the formation's custom types and the system
 * types) per patient, PDT records and dictionary values per instance. Every query names the
 * tenant, the instance, the type, and for CDT records the patient.
 */

export type CdtRecordRow = Row<'cdt_records'>;
export type PdtRecordRow = Row<'pdt_records'>;
export type DictionaryRecordRow = Row<'dictionary_records'>;

export interface RecordRows {
  CDT: CdtRecordRow;
  PDT: PdtRecordRow;
  DICTIONARY: DictionaryRecordRow;
}

/** What created a CDT record, shown as jsonBody `source_type`/`source_id`/`source_name`. */
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

/** Values are stored without nulls: an unset field and a cleared one read the same (null). */
export function withoutNulls(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== null && value !== undefined));
}

/** `changes` applied to `values`: a null removes the field; fields not named keep their values. */
export function mergedValues(values: unknown, changes: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(values as Record<string, unknown>) };
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

export interface NewRecord {
  values: Record<string, unknown>;
  /** The formation version the record is written under (CDT records). */
  version: number | null;
  patientId?: string;
  source?: RecordSource;
  externalId?: string | null;
  /** A caller that must know the id before the insert (e.g. for file keys) can give it. */
  id?: string;
}

export async function insertRecord<K extends RecordKind>(
  w: Writing,
  kind: K,
  scope: Scope,
  typeName: string,
  record: NewRecord,
): Promise<RecordRows[K]> {
  const { db: trx, now } = w;
  const id = record.id ?? uuidv7();
  const base = { tenant_id: scope.tenantId, instance_id: scope.instanceId, id };
  if (kind === 'CDT') {
    return (await trx
      .insertInto('cdt_records')
      .values({
        ...base,
        patient_id: record.patientId ?? '',
        cdt_name: typeName,
        version: record.version,
        values: JSON.stringify(withoutNulls(record.values)),
        external_guid: uuidv7(),
        external_id: record.externalId ?? null,
        source_type: record.source?.type ?? null,
        source_id: record.source?.id ?? null,
        source_name: record.source?.name ?? null,
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow()) as RecordRows[K];
  }
  if (kind === 'PDT') {
    return (await trx
      .insertInto('pdt_records')
      .values({
        ...base,
        pdt_name: typeName,
        values: JSON.stringify(record.values),
        full_value: fullValue(record.values),
        deleted: false,
        external_guid: uuidv7(),
        external_id: record.externalId ?? null,
        ...w.created(),
      })
      .returningAll()
      .executeTakeFirstOrThrow()) as RecordRows[K];
  }
  return (await trx
    .insertInto('dictionary_records')
    .values({
      ...base,
      dictionary_name: typeName,
      values: JSON.stringify(record.values),
      full_value: fullValue(record.values),
      deleted: false,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow()) as RecordRows[K];
}

export interface RecordLookup {
  /** CDT records: the patient they belong to. */
  patientId?: string;
  /** Locks the row until the transaction ends. */
  forUpdate?: boolean;
  forShare?: boolean;
}

/** A record of the type (deleted ones too, for the kinds that soft-delete). */
export async function findRecord<K extends RecordKind>(
  db: Kysely<DB>,
  kind: K,
  scope: Scope,
  typeName: string,
  id: string,
  lookup: RecordLookup = {},
): Promise<RecordRows[K] | undefined> {
  const { tenantId, instanceId } = scope;
  if (kind === 'CDT') {
    const query = db
      .selectFrom('cdt_records')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('instance_id', '=', instanceId)
      .where('patient_id', '=', lookup.patientId ?? '')
      .where('cdt_name', '=', typeName)
      .where('id', '=', id);
    return (await locked(query, lookup).executeTakeFirst()) as RecordRows[K] | undefined;
  }
  if (kind === 'PDT') {
    const query = db
      .selectFrom('pdt_records')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('instance_id', '=', instanceId)
      .where('pdt_name', '=', typeName)
      .where('id', '=', id);
    return (await locked(query, lookup).executeTakeFirst()) as RecordRows[K] | undefined;
  }
  const query = db
    .selectFrom('dictionary_records')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('instance_id', '=', instanceId)
    .where('dictionary_name', '=', typeName)
    .where('id', '=', id);
  return (await locked(query, lookup).executeTakeFirst()) as RecordRows[K] | undefined;
}

function locked<Q extends { forUpdate(): Q; forShare(): Q }>(query: Q, lookup: RecordLookup): Q {
  if (lookup.forUpdate) return query.forUpdate();
  return lookup.forShare ? query.forShare() : query;
}

/** Replaces a record's values (already merged by the caller), stamping the change. */
export async function writeRecordValues<K extends RecordKind>(
  w: Writing,
  kind: K,
  row: RecordRows[K],
  values: Record<string, unknown>,
  version: number | null,
): Promise<RecordRows[K]> {
  const trx = w.db;
  const key = { tenant: row.tenant_id, id: row.id };
  if (kind === 'CDT') {
    return (await trx
      .updateTable('cdt_records')
      .set({ values: JSON.stringify(withoutNulls(values)), version, ...w.updated() })
      .where('tenant_id', '=', key.tenant)
      .where('id', '=', key.id)
      .returningAll()
      .executeTakeFirstOrThrow()) as RecordRows[K];
  }
  const set = { values: JSON.stringify(values), full_value: fullValue(values) };
  if (kind === 'PDT') {
    return (await trx
      .updateTable('pdt_records')
      .set({ ...set, ...w.updated() })
      .where('tenant_id', '=', key.tenant)
      .where('id', '=', key.id)
      .returningAll()
      .executeTakeFirstOrThrow()) as RecordRows[K];
  }
  return (await trx
    .updateTable('dictionary_records')
    .set({ ...set, updated_at: w.now })
    .where('tenant_id', '=', key.tenant)
    .where('id', '=', key.id)
    .returningAll()
    .executeTakeFirstOrThrow()) as RecordRows[K];
}

/**
 * Removes a record: CDT records are deleted; PDT records and dictionary values are marked
 * deleted (DECISIONS §8), and answered as they now are.
 */
export async function removeRecord<K extends RecordKind>(w: Writing, kind: K, row: RecordRows[K]): Promise<RecordRows[K]> {
  const trx = w.db;
  if (kind === 'CDT') {
    await trx.deleteFrom('cdt_records').where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute();
    return row;
  }
  if (kind === 'PDT') {
    return (await trx
      .updateTable('pdt_records')
      .set({ deleted: true, ...w.updated() })
      .where('tenant_id', '=', row.tenant_id)
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow()) as RecordRows[K];
  }
  return (await trx
    .updateTable('dictionary_records')
    .set({ deleted: true, updated_at: w.now })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow()) as RecordRows[K];
}
