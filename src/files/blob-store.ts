import type { Readable } from 'node:stream';

/**
 * Where file bytes live: the local filesystem (the default) or S3-compatible object storage. The
 * bytes stream in and out; no driver holds a whole file in memory. Keys are the `storageKey` of
 * the file entry (`<tenant>/<instance>/patients/<pid>/documents/<uuid>`).
 */
/** The job kind that removes a deleted file's blob (files.ts runs it; the deleting write queues it). */
export const REMOVE_BLOB = 'files.remove';

export interface BlobStore {
  readonly driver: 'local' | 's3';
  /** Stores the stream under the key; a failed or aborted stream leaves nothing behind. */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** The bytes, or the inclusive byte range of them. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** The blob's size in bytes, or undefined when the store has none under the key (a backup's, a copy's check). */
  size(key: string): Promise<number | undefined>;
  /** Removes the keys; a key that is already gone is not an error. */
  remove(keys: readonly string[]): Promise<void>;
}

export interface ByteRange {
  start: number;
  end: number;
}
