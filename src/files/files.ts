import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { JobDeferred } from '../jobs/kinds.ts';
import type { BlobStore } from './blob-store.ts';
import { blobsHeldUntil } from './holds.ts';
import { FileLinks, type LinkIssue, type LinkTarget } from './links.ts';
import { LocalBlobStore } from './local-store.ts';
import { S3BlobStore } from './s3-store.ts';
import type { FileStoreSettings } from './settings.ts';
import type { FileRow } from './store.ts';

export function createBlobStore(settings: FileStoreSettings): BlobStore {
  return settings.driver === 's3' ? new S3BlobStore(settings) : new LocalBlobStore(settings.root);
}

/** A file entry as every area answers it (002; PROD-SHAPES "Document summary" key order). */
export interface FileEntry {
  id: string;
  size: number;
  storageKey: string;
  contentType: string;
  originalName: string;
}

export interface LinkedFileEntry extends FileEntry {
  url: string;
  thumbnailUrl: string | null;
}

export function fileEntry(row: FileRow): FileEntry {
  return {
    id: row.id,
    size: Number(row.size),
    storageKey: row.storage_key,
    contentType: row.content_type,
    originalName: row.original_name,
  };
}

/**
 * The files of every area: the blob store and signed links. A deleted file's blob is removed by a
 * `files.remove` job, which the write deleting its row queues (store.ts: an owner's delete, the
 * patient's), so no blob goes while its row may still roll back, and a crash only delays its removal.
 */
export class FileService {
  readonly links: FileLinks;

  constructor(
    readonly blobs: BlobStore,
    secret: string,
  ) {
    this.links = new FileLinks(secret);
  }

  /**
   * The entry with a link valid for 5 minutes (000), signed by Cairn and served by Cairn whatever
   * the store (S3's bytes stream through): so every use of a link is in the access log. A
   * presigned S3 URL would let the bytes be fetched with no record of it.
   */
  withLink(row: FileRow, issue: LinkIssue): LinkedFileEntry {
    const target: LinkTarget = { tenantId: row.tenant_id, instanceId: row.instance_id, fileId: row.id };
    // Cairn keeps no thumbnails: no image is resized on upload, so there is none to link.
    return { ...fileEntry(row), url: this.links.sign(target, issue), thumbnailUrl: null };
  }

  /** The files of a page of records, linked and grouped by the record they belong to. */
  withLinksByOwner(rows: readonly FileRow[], issue: LinkIssue): Map<string, LinkedFileEntry[]> {
    const linked = rows.map((row) => this.withLink(row, issue));
    const byOwner = new Map<string, LinkedFileEntry[]>();
    for (const [index, row] of rows.entries()) byOwner.set(row.owner_id, [...(byOwner.get(row.owner_id) ?? []), linked[index]!]);
    return byOwner;
  }
}

/**
 * The `files.remove` job: the blob of a file whose row is gone. Removing one already gone is no
 * error; while a backup holds removals (holds.ts), it waits for the hold to end.
 */
export async function removeBlob(
  services: { db: Kysely<DB>; files: FileService; clock: { now(): Date } },
  payload: Record<string, unknown>,
): Promise<void> {
  const now = services.clock.now();
  const heldUntil = await blobsHeldUntil(services.db, now);
  // Asked again each minute: a backup that ends early releases its hold long before it would expire.
  if (heldUntil) throw new JobDeferred(new Date(Math.min(heldUntil.getTime(), now.getTime() + 60_000)));
  if (typeof payload.storageKey === 'string') await services.files.blobs.remove([payload.storageKey]);
}
