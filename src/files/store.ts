import type { Kysely } from 'kysely';
import type { DB, Row } from '../db/schema.ts';
import type { Scope } from '../db/scope.ts';
import type { Work, Writing } from '../events/work.ts';
import { REMOVE_BLOB } from './blob-store.ts';
import type { StoredFile } from './upload.ts';

/** The `files` rows: what is stored where, for whom. Every query names the tenant and instance. */

export type FileRow = Row<'files'>;

/** The record files belong to: its kind (an owner an area declares), id and patient. */
export interface FileOwnerRef {
  kind: string;
  id: string;
  patientId?: string;
}

export async function insertFiles(
  w: Writing,
  scope: Scope,
  owner: FileOwnerRef,
  files: readonly StoredFile[],
): Promise<FileRow[]> {
  if (files.length === 0) return [];
  return w.db
    .insertInto('files')
    .values(
      files.map((file) => ({
        tenant_id: scope.tenantId,
        instance_id: scope.instanceId,
        id: file.id,
        owner_kind: owner.kind,
        owner_id: owner.id,
        patient_id: owner.patientId ?? null,
        original_name: file.originalName,
        content_type: file.contentType,
        size: file.size,
        storage_key: file.storageKey,
        sha256: file.sha256,
        created_at: w.now,
        created_by: w.actor.id,
        created_by_name: w.actor.name,
      })),
    )
    .returningAll()
    .execute();
}

/** The files of some owners of one kind, oldest first. */
export function filesOf(db: Kysely<DB>, scope: Scope, kind: string, ownerIds: readonly string[]): Promise<FileRow[]> {
  if (ownerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('files')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('owner_kind', '=', kind)
    .where('owner_id', 'in', ownerIds)
    .where('instance_id', '=', scope.instanceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findFile(db: Kysely<DB>, scope: Scope, id: string): Promise<FileRow | undefined> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}

/**
 * Deletes rows and queues their blobs' removal (a `files.remove` job each) in the same write, so no
 * blob goes while its row may still roll back, and a crash only delays the removal.
 */
export async function deleteFiles(w: Work, scope: Scope, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  removeBlobs(
    w,
    await w.db.deleteFrom('files').where('tenant_id', '=', scope.tenantId).where('id', 'in', ids).returning(gone).execute(),
  );
}

export async function deleteFilesOf(w: Work, scope: Scope, kind: string, ownerId: string): Promise<void> {
  const rows = await w.db
    .deleteFrom('files')
    .where('tenant_id', '=', scope.tenantId)
    .where('owner_kind', '=', kind)
    .where('owner_id', '=', ownerId)
    .returning(gone)
    .execute();
  removeBlobs(w, rows);
}

/** A patient's files, in the patient's delete (the platform's `patientDeletion`). */
export async function deleteFilesOfPatient(w: Work, scope: Pick<Scope, 'tenantId'>, patientId: string): Promise<void> {
  const rows = await w.db
    .deleteFrom('files')
    .where('tenant_id', '=', scope.tenantId)
    .where('patient_id', '=', patientId)
    .returning(gone)
    .execute();
  removeBlobs(w, rows);
}

const gone = ['instance_id', 'storage_key'] as const;

function removeBlobs(w: Work, rows: readonly { instance_id: string; storage_key: string }[]): void {
  for (const row of rows) w.enqueue({ kind: REMOVE_BLOB, payload: { storageKey: row.storage_key }, instanceId: row.instance_id });
}

/** Gives one owner's files to another (a sent draft's attachments become its email's): the rows move, the blobs stay. */
export async function moveFiles(trx: Kysely<DB>, scope: Scope, from: FileOwnerRef, to: FileOwnerRef): Promise<void> {
  await trx
    .updateTable('files')
    .set({ owner_kind: to.kind, owner_id: to.id, ...(to.patientId ? { patient_id: to.patientId } : {}) })
    .where('tenant_id', '=', scope.tenantId)
    .where('owner_kind', '=', from.kind)
    .where('owner_id', '=', from.id)
    .where('instance_id', '=', scope.instanceId)
    .execute();
}
