import type { Kysely } from 'kysely';
import type { FileStoreSettings } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { BlobStore } from './blob-store.ts';
import { FileLinks, LINK_SECONDS, type LinkTarget } from './links.ts';
import { LocalBlobStore } from './local-store.ts';
import { S3BlobStore } from './s3-store.ts';
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

export interface SweepScope {
  tenantId?: string;
  queuedBefore?: Date;
}

/** How many queued blob removals one sweep takes. */
const SWEEP_BATCH = 500;

/**
 * The files of every area: the blob store, signed links, and the removal of blobs whose rows
 * are gone (queued by the `files` table's trigger, swept after the deleting write commits and
 * every minute, so a crash between the two only delays a removal).
 */
export class FileService {
  readonly links: FileLinks;
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    readonly blobs: BlobStore,
    secret: string,
    private readonly db: Kysely<DB>,
  ) {
    this.links = new FileLinks(secret);
  }

  /** The entry with a link valid for 5 minutes (000): presigned by S3, or signed by Cairn. */
  async withLink(row: FileRow, origin: string, now: Date): Promise<LinkedFileEntry> {
    const target: LinkTarget = { tenantId: row.tenant_id, instanceId: row.instance_id, fileId: row.id };
    const presigned = await this.blobs.presign(row.storage_key, LINK_SECONDS, {
      contentType: row.content_type,
      fileName: row.original_name,
    });
    // Cairn keeps no thumbnails: no image is resized on upload, so there is none to link.
    return { ...fileEntry(row), url: presigned ?? `${origin}${this.links.sign(target, now)}`, thumbnailUrl: null };
  }

  /** Sweeps a tenant's queue now without waiting: called after a write that deleted files has committed. */
  sweepSoon(log: { warn(object: object, message: string): void }, only: SweepScope = {}): void {
    const running = this.sweepQueue(only)
      .catch((error: Error) => log.warn({ code: (error as { code?: string }).code }, 'file sweep failed'))
      .finally(() => this.running.delete(running));
    this.running.add(running);
  }

  /**
   * Removes the queued blobs, a batch at a time; a blob that fails stays queued for the next
   * sweep. A request sweeps its own tenant's queue; the periodic sweep takes what has waited
   * longer than a request's sweep would have.
   */
  async sweep(only: SweepScope = {}): Promise<number> {
    // A sweep in flight holds its rows locked, which this one would skip: wait for it first, so
    // that when this returns every removal queued before it has been done or has failed.
    await Promise.allSettled([...this.running]);
    return this.sweepQueue(only);
  }

  private async sweepQueue(only: SweepScope): Promise<number> {
    let removed = 0;
    for (;;) {
      const count = await this.db.transaction().execute(async (trx) => {
        let query = trx.selectFrom('file_removals').select(['tenant_id', 'storage_key']);
        if (only.tenantId) query = query.where('tenant_id', '=', only.tenantId);
        if (only.queuedBefore) query = query.where('queued_at', '<', only.queuedBefore);
        const queued = await query.orderBy('queued_at').limit(SWEEP_BATCH).forUpdate().skipLocked().execute();
        if (queued.length === 0) return 0;
        await this.blobs.remove(queued.map((row) => row.storage_key));
        for (const row of queued) {
          await trx
            .deleteFrom('file_removals')
            .where('tenant_id', '=', row.tenant_id)
            .where('storage_key', '=', row.storage_key)
            .execute();
        }
        return queued.length;
      });
      removed += count;
      if (count < SWEEP_BATCH) return removed;
    }
  }
}
