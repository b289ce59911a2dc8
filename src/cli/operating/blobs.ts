import { createHash } from 'node:crypto';
import { PassThrough, type Readable, Transform } from 'node:stream';
import { type Kysely, sql } from 'kysely';
import { WHOLE } from './rows.ts';
import { quoted, type TableShape } from './tables.ts';

/**
 * The blobs an installation's rows name. By convention a column named `storage_key` holds a key
 * of the file store (`files`, `fhir_export_files`), so a table added next year that stores bytes
 * the same way is carried by backup and copy without a list to edit.
 */
export interface BlobEntry {
  key: string;
  contentType: string;
}

const OCTETS = 'application/octet-stream';

/** Keys named, each once with the content type a row gives it (the first given), handed out in byte order. */
export class NamedBlobs {
  private readonly byKey = new Map<string, string>();

  add(key: string, contentType: string | null): void {
    this.byKey.set(key, contentType ?? this.byKey.get(key) ?? OCTETS);
  }

  entries(): BlobEntry[] {
    return [...this.byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, contentType]) => ({ key, contentType }));
  }
}

/** The tables that name blobs: those with a `storage_key` column. */
export function namingBlobs(shape: TableShape): boolean {
  return shape.columns.includes('storage_key');
}

/** Every key the tables name, once, in byte order, with the content type its row gives (if it has one). */
export async function blobsNamed<DB>(db: Kysely<DB>, shapes: readonly TableShape[]): Promise<BlobEntry[]> {
  const named = new NamedBlobs();
  for (const shape of shapes) {
    if (!namingBlobs(shape)) continue;
    const type = shape.columns.includes('content_type') ? 'content_type' : 'NULL::text';
    const { rows } = await sql<{ key: string; content_type: string | null }>`${sql.raw(WHOLE)}
      SELECT DISTINCT storage_key AS key, ${sql.raw(type)} AS content_type FROM ${sql.raw(quoted(shape.name))}`.execute(db);
    for (const row of rows) named.add(row.key, row.content_type);
  }
  return named.entries();
}

/** A stream's bytes passed on unchanged, their SHA-256 and count read once it ends. */
export class Hashing extends Transform {
  private readonly hash = createHash('sha256');
  bytes = 0;

  override _transform(chunk: Buffer, _encoding: string, done: () => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    this.push(chunk);
    done();
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}

/** The SHA-256 of a stream's bytes, read to its end. */
export async function sha256Of(stream: Readable): Promise<string> {
  const hashing = new Hashing();
  const sink = stream.pipe(hashing).pipe(new PassThrough());
  sink.resume();
  await new Promise<void>((resolve, reject) => {
    sink.on('end', resolve);
    stream.on('error', reject);
  });
  return hashing.hex();
}
