import { randomUUID } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { BlobStore, ByteRange } from './blob-store.ts';
import { FileWriter } from './file-writer.ts';

/**
 * Blobs as files under a root folder (`CAIRN_DATA_DIR/files`). A blob is written to a temporary
 * name beside its place and renamed when complete, so a reader never sees half a file and a
 * failed upload leaves only a temporary file, which is removed at once. The bytes are flushed to
 * the disk before the rename, and the rename before `put` returns: the row that names the blob
 * commits after it, so a crash or power loss never leaves a committed file empty or missing.
 */
export class LocalBlobStore implements BlobStore {
  readonly driver = 'local' as const;

  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    const full = path.resolve(this.root, key);
    // Keys are made by Cairn, never by clients; this only guards against a bug escaping the root.
    if (!full.startsWith(this.root + path.sep)) throw new Error('storage key outside the store');
    return full;
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.pathOf(key);
    const folder = path.dirname(target);
    const created = await fs.mkdir(folder, { recursive: true });
    const partial = `${target}.${randomUUID()}.part`;
    try {
      await pipeline(body, new FileWriter(partial));
      await fs.rename(partial, target);
    } catch (error) {
      await fs.rm(partial, { force: true });
      throw error;
    }
    try {
      // The rename's folder, and each folder just made, with the entry naming it in its parent.
      for (const made of foldersToSync(folder, created)) await syncFolder(made);
    } catch (error) {
      await fs.rm(target, { force: true });
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const stream = createReadStream(this.pathOf(key), range ? { start: range.start, end: range.end } : {});
    // Open before answering, so a missing blob is an error here rather than mid-response.
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    return stream;
  }

  async size(key: string): Promise<number | undefined> {
    const stat = await fs.stat(this.pathOf(key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    return stat?.size;
  }

  async remove(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => fs.rm(this.pathOf(key), { force: true })));
  }
}

/** A rename is durable once its folder is flushed. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function foldersToSync(folder: string, created: string | undefined): string[] {
  const folders = [folder];
  if (!created) return folders;
  const top = path.dirname(created);
  for (let current = folder; current !== top && path.dirname(current) !== current; ) {
    current = path.dirname(current);
    folders.push(current);
  }
  return folders;
}
