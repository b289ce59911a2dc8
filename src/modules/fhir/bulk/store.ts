import { type Kysely, sql } from 'kysely';
import type { DB, NewRow, Row } from '../../../db/schema.ts';
import type { Scope } from '../../../db/scope.ts';
import type { Work } from '../../../events/work.ts';
import { REMOVE_BLOB } from '../../../files/blob-store.ts';
import { isUuid } from '../../../http/fhir.ts';
import './tables.ts';

/**
 * The bulk export's SQL: every statement names the tenant (and the instance) for each table it
 * touches. The walk's place moves only by a statement guarded by the place it started from, so a
 * run that lost its export (cancelled, expired, or taken over by another node) writes nothing.
 */

export type ExportRow = Row<'fhir_exports'>;
export type ExportFileRow = Row<'fhir_export_files'>;

/** Where an export's file lives in the blob store: its place, so a file redone after a crash replaces its own leftover. */
export const blobKey = (scope: Scope, exportId: string, seq: number) =>
  `${scope.tenantId}/${scope.instanceId}/fhir-exports/${exportId}/${seq}.ndjson`;

export async function findExport(db: Kysely<DB>, scope: Scope, id: string): Promise<ExportRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('fhir_exports')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The exports a caller has in progress in the instance. */
export async function countRunning(db: Kysely<DB>, scope: Scope, callerId: string | null): Promise<number> {
  const { count } = await db
    .selectFrom('fhir_exports')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('requested_by', callerId === null ? 'is' : '=', callerId)
    .where('status', '=', 'IN_PROGRESS')
    .executeTakeFirstOrThrow();
  return Number(count);
}

export async function insertExport(w: Work, row: NewRow<'fhir_exports'>): Promise<void> {
  await w.db.insertInto('fhir_exports').values(row).execute();
}

export function filesOfExport(db: Kysely<DB>, scope: Scope, exportId: string): Promise<ExportFileRow[]> {
  return db
    .selectFrom('fhir_export_files')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('export_id', '=', exportId)
    .orderBy('seq')
    .execute();
}

export async function findExportFile(db: Kysely<DB>, scope: Scope, id: string): Promise<ExportFileRow | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('fhir_export_files')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Whether a file row names this blob (a run that lost its export removes its blob only when none does). */
export async function blobRecorded(db: Kysely<DB>, scope: Scope, exportId: string, storageKey: string): Promise<boolean> {
  const found = await db
    .selectFrom('fhir_export_files')
    .select('id')
    .where('tenant_id', '=', scope.tenantId)
    .where('export_id', '=', exportId)
    .where('storage_key', '=', storageKey)
    .executeTakeFirst();
  return found !== undefined;
}

/** The walk's next place: the source read and the last id written of it. */
export interface Place {
  sourceIndex: number;
  afterId: string | null;
}

/** Moves an export in progress from the place `row` read to `to`; false when it is no longer there. */
export async function movePlace(
  w: Work,
  row: ExportRow,
  set: Place & { files?: number; resources?: number; expiresAt: Date; status?: 'COMPLETED' | 'FAILED'; error?: string },
): Promise<boolean> {
  const moved = await w.db
    .updateTable('fhir_exports')
    .set({
      source_index: set.sourceIndex,
      after_id: set.afterId,
      files: set.files ?? row.files,
      resources: sql`resources + ${set.resources ?? 0}::bigint`,
      expires_at: set.expiresAt,
      updated_at: w.now,
      ...(set.status ? { status: set.status, completed_at: w.now, error: set.error ?? null } : {}),
    })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .where('status', '=', 'IN_PROGRESS')
    .where('source_index', '=', row.source_index)
    .where('files', '=', row.files)
    .where(sql<boolean>`after_id IS NOT DISTINCT FROM ${row.after_id}::uuid`)
    .returning('id')
    .executeTakeFirst();
  return moved !== undefined;
}

export async function insertFile(w: Work, file: NewRow<'fhir_export_files'>): Promise<void> {
  await w.db.insertInto('fhir_export_files').values(file).execute();
}

/** The export, held until the write ends (a cancel and an expiry of one export take turns). */
export function lockExport(w: Work, scope: Scope, id: string): Promise<ExportRow | undefined> {
  return w.db
    .selectFrom('fhir_exports')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Removes an export and its files' rows; their blobs, and the blob of the file a run may be writing
 * (or left by a crash), go by `files.remove` jobs once this write has committed.
 */
export async function removeExport(w: Work, scope: Scope, row: ExportRow): Promise<void> {
  const files = await w.db
    .deleteFrom('fhir_export_files')
    .where('tenant_id', '=', scope.tenantId)
    .where('export_id', '=', row.id)
    .returning('storage_key')
    .execute();
  await w.db.deleteFrom('fhir_exports').where('tenant_id', '=', scope.tenantId).where('id', '=', row.id).execute();
  const keys = [...files.map((file) => file.storage_key), blobKey(scope, row.id, row.files)];
  for (const storageKey of keys) w.enqueue({ kind: REMOVE_BLOB, payload: { storageKey }, instanceId: scope.instanceId });
}

/** The export's job when it is DEAD (out of attempts): the export failed, with the job's last error code. */
export async function deadJobOf(db: Kysely<DB>, tenantId: string, kind: string, exportId: string) {
  return db
    .selectFrom('jobs')
    .select(['id', 'last_error'])
    .where('tenant_id', '=', tenantId)
    .where('state', '=', 'DEAD')
    .where('kind', '=', kind)
    .where(sql<boolean>`payload @> ${JSON.stringify({ exportId })}::jsonb`)
    .executeTakeFirst();
}
