import fs from 'node:fs';
import type { Config } from '../../config.ts';
import type { DatabaseKind } from '../../db/database.ts';
import { lastMigration } from '../../db/migrate.ts';
import { ArchiveWriter } from './archive.ts';
import { type BlobEntry, blobsNamed, Hashing, NamedBlobs, namingBlobs } from './blobs.ts';
import { linePages, linesIn, valuesIn } from './copy-text.ts';
import { countOf, identityPositions, TableDigest } from './rows.ts';
import { readInstallation, type Source } from './source.ts';
import { tableShapes } from './tables.ts';
import { Timings } from './timings.ts';

/**
 * `cairn backup <file>`: one archive of the installation, its database as of one instant and the
 * blobs that instant's rows name, taken while the server serves (source.ts). The archive holds, in
 * order: `cairn-backup.json` (what restore needs first), `tables/<name>/<n>` (each table's rows in
 * COPY's text format, parents first, about a megabyte of whole lines an entry: copy-text.ts; a
 * table without rows has none), `files.json` (the blobs' keys and content types), `files/<key>`,
 * and `manifest.json`: release, migration, rows and a SHA-256 per table (of its pages, in order),
 * size and SHA-256 per blob. Each page goes into the archive as it is read: nothing
 * is set aside on disk first.
 */

/**
 * 3: a table's rows as COPY text, in the order the engine reads them, the manifest's SHA-256 over
 * its pages in order (a restore checks the rows loaded by their digest, copy-text.ts); 2: pages of record texts in key order (rows.ts); 1: one entry of JSON lines
 * (format1.ts). Restore reads all three.
 */
export const BACKUP_FORMAT = 3;

/** Pages (about a megabyte each) the archive may hold before the next is read. */
const PAGES_AHEAD = 8;

export interface BackupHeader {
  format: number;
  cairn: string;
  migration: string;
  engine: DatabaseKind;
  takenAt: string;
  /** Only the file store (a PostgreSQL installation's database is the operator's pg_dump). */
  filesOnly: boolean;
  /**
   * Where each identity sequence stood (`events.seq`: its last value), which a restore goes on
   * from; absent from backups made before it was kept (the rows' greatest values then).
   */
  identities?: Record<string, number>;
  /** Format 2: the rows in a page of the tables' entries, which a table's digest is taken over. */
  rowsPerPage?: number;
  /** Format 3: each table's columns in the order its lines hold them (what COPY FROM is told). */
  columns?: Record<string, string[]>;
}

export interface BackupManifest extends BackupHeader {
  tables: { name: string; rows: number; sha256: string }[];
  files: { key: string; size: number; sha256: string }[];
}

export interface BackupSummary {
  file: string;
  tables: number;
  rows: number;
  files: number;
  bytes: number;
  timings: Timings;
}

export async function backup(
  config: Config,
  file: string,
  options: { filesOnly: boolean; release: string },
): Promise<BackupSummary> {
  return readInstallation(config, 'snapshot', async (source) => {
    const archive = new ArchiveWriter(file);
    const timings = new Timings();
    try {
      const manifest = await write(source, archive, options, timings);
      await archive.finish();
      timings.mark('finish');
      return {
        file,
        tables: manifest.tables.length,
        rows: manifest.tables.reduce((sum, table) => sum + table.rows, 0),
        files: manifest.files.length,
        bytes: fs.statSync(file).size,
        timings,
      };
    } catch (error) {
      await archive.abort();
      throw error;
    }
  });
}

async function write(source: Source, archive: ArchiveWriter, options: { filesOnly: boolean; release: string }, timings: Timings) {
  const migration = await lastMigration(source.db);
  if (!migration) throw new Error('the database holds no Cairn schema: nothing to back up');
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    cairn: options.release,
    migration,
    engine: source.engine,
    takenAt: new Date(
      (await source.db.selectNoFrom((eb) => eb.fn<Date>('now', []).as('now')).executeTakeFirstOrThrow()).now,
    ).toISOString(),
    filesOnly: options.filesOnly,
  };
  const shapes = await tableShapes(source.db);
  if (!options.filesOnly) {
    header.identities = await identityPositions(source.db, shapes);
    header.columns = Object.fromEntries(shapes.map((shape) => [shape.name, shape.columns]));
  }
  await archive.addJson('cairn-backup.json', header);
  timings.mark('start');
  const tables: BackupManifest['tables'] = [];
  // The blobs the archived rows name, taken from those rows as they pass: on Citus the rows' session
  // and this command's other statements see the workers at different instants, and a file deleted
  // between the two would be in the archive without its blob.
  const named = new NamedBlobs();
  if (!options.filesOnly) {
    const rows = await source.rows();
    // Pages handed to the archive and not yet taken (compressed, written): a few are let run
    // ahead, so the database's reading and the archive's compressing overlap instead of taking turns.
    const writing: Promise<void>[] = [];
    for (const shape of shapes) {
      const digest = new TableDigest();
      const naming = namingBlobs(shape)
        ? [shape.columns.indexOf('storage_key'), shape.columns.indexOf('content_type')]
        : undefined;
      const copied = rows.read(shape, shape.columns);
      for await (const page of linePages(copied)) {
        digest.add(page, linesIn(page));
        if (naming) for (const [key, contentType] of valuesIn(page, naming)) if (key) named.add(key, contentType ?? null);
        const written = archive.addBytes(`tables/${shape.name}/${digest.pages}`, page);
        // Heard in turn below; unheard meanwhile, a failure would end the process.
        written.catch(() => {});
        writing.push(written);
        if (writing.length > PAGES_AHEAD) await writing.shift();
      }
      // The server's own count of the rows it sent, or where the rows came in pages the snapshot's
      // count: a line split wrongly, or a page read twice, would show here, not at a restore.
      const count = copied.rowCount() ?? (await countOf(source.db, shape));
      if (count !== digest.rows) throw new Error(`${shape.name}: ${digest.rows} rows read of ${count}`);
      tables.push({ name: shape.name, rows: digest.rows, sha256: digest.hex() });
    }
    await Promise.all(writing);
  }
  timings.mark('tables');
  const blobs = options.filesOnly ? await blobsNamed(source.db, shapes) : named.entries();
  await archive.addJson('files.json', blobs);
  const files: BackupManifest['files'] = [];
  for (const blob of blobs) files.push(await addBlob(source, archive, blob));
  timings.mark('files');
  const manifest: BackupManifest = { ...header, tables, files };
  await archive.addJson('manifest.json', manifest);
  return manifest;
}

async function addBlob(source: Source, archive: ArchiveWriter, blob: BlobEntry) {
  const size = await source.blobs.size(blob.key);
  // The hold keeps every blob a snapshot row names: one missing was lost before this backup.
  if (size === undefined) throw new Error(`the file store has no blob under ${blob.key}, which the database names`);
  const hashing = new Hashing();
  await archive.addStream(`files/${blob.key}`, size, (await source.blobs.get(blob.key)).pipe(hashing));
  return { key: blob.key, size, sha256: hashing.hex() };
}
