import { type Kysely, sql } from 'kysely';
import { type Config, settingsOf } from '../../config.ts';
import { openDatabase } from '../../db/database.ts';
import { lastMigration, migrateTo, migrateToLatest } from '../../db/migrate.ts';
import type { DB } from '../../db/schema.ts';
import type { BlobStore } from '../../files/blob-store.ts';
import { createBlobStore } from '../../files/files.ts';
import { fileStoreSettings } from '../../files/settings.ts';
import { dropSecondaryIndexes, rebuildIndexes, type SavedIndex } from '../indexes.ts';
import { archiveEntries, readJson, readText } from './archive.ts';
import { BACKUP_FORMAT, type BackupHeader, type BackupManifest } from './backup.ts';
import { type BlobEntry, Hashing, sha256Of } from './blobs.ts';
import { jsonDigestOf, loadJsonLines } from './format1.ts';
import { advanceIdentities, digestOf, readingSession, WHOLE, writeRows } from './rows.ts';
import { quoted, type TableShape, tableShapes } from './tables.ts';

/**
 * `cairn restore <file>`: a backup into an empty installation (the configured database, or a new
 * data directory). The schema is built at the backup's migration, filled parents first (its
 * secondary indexes built after, as pg_restore does; its sequences on from where the backup says
 * they stood), its blobs
 * put in the configured store, then every table and blob checked against the manifest (rows and
 * SHA-256, read back from the database and the store), and only then migrated to this release.
 */
export interface RestoreSummary {
  migration: string;
  rows: number;
  files: number;
  upgradedBy: string[];
}

export async function restore(config: Config, file: string): Promise<RestoreSummary> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    return await database.db.connection().execute(async (db) => {
      await readingSession(db);
      return restoreInto(db, createBlobStore(settingsOf(config, fileStoreSettings)), file);
    });
  } finally {
    await database.close();
  }
}

async function restoreInto(db: Kysely<DB>, blobs: BlobStore, file: string): Promise<RestoreSummary> {
  let header: BackupHeader | undefined;
  let shapes = new Map<string, TableShape>();
  // Set aside while the tables load, built once they are all in (before the files come).
  let setAside: SavedIndex[] = [];
  let contentTypes = new Map<string, string>();
  const restored = new Map<string, { size: number; sha256: string }>();
  const loading = new TableLoad(db);
  for await (const entry of archiveEntries(file)) {
    if (entry.name === 'cairn-backup.json') {
      header = await readJson<BackupHeader>(entry);
      if (header.format > BACKUP_FORMAT)
        throw new Error(`${file} is a backup of format ${header.format}; this release reads ${BACKUP_FORMAT} and older`);
      if (!header.filesOnly) {
        shapes = await prepareSchema(db, header.migration);
        setAside = await dropSecondaryIndexes(db);
      }
    } else if (!header) {
      throw new Error(`${file} is not a Cairn backup (it does not start with cairn-backup.json)`);
    } else if (entry.name.startsWith('tables/')) {
      // Format 2: `tables/<name>/<n>`, a page each; format 1: `tables/<name>.ndjson`, the whole table.
      const name = entry.name.slice('tables/'.length).replace(/(\/\d+|\.ndjson)$/, '');
      const shape = shapes.get(name);
      if (!shape) throw new Error(`${entry.name}: the schema at ${header.migration} has no such table`);
      if (header.format === 1) {
        await loading.finish(header.identities);
        await loadJsonLines(db, shape, entry);
        await advanceIdentities(db, shape, header.identities);
      } else {
        await loading.page(shape, await readText(entry), header.identities);
      }
    } else if (entry.name === 'files.json') {
      await loading.finish(header.identities);
      await rebuildIndexes(db, setAside);
      setAside = [];
      contentTypes = new Map((await readJson<BlobEntry[]>(entry)).map((blob) => [blob.key, blob.contentType]));
    } else if (entry.name.startsWith('files/')) {
      const key = entry.name.slice('files/'.length);
      const hashing = new Hashing();
      await blobs.put(key, entry.stream.pipe(hashing), contentTypes.get(key) ?? 'application/octet-stream');
      restored.set(key, { size: hashing.bytes, sha256: hashing.hex() });
    } else if (entry.name === 'manifest.json') {
      const manifest = await readJson<BackupManifest>(entry);
      await verify(db, blobs, manifest, shapes, restored);
      const upgradedBy = header.filesOnly ? [] : await migrateToLatest(db);
      return {
        migration: header.migration,
        rows: manifest.tables.reduce((sum, table) => sum + table.rows, 0),
        files: restored.size,
        upgradedBy,
      };
    }
  }
  throw new Error(`${file} ends before its manifest: the backup is incomplete`);
}

/**
 * The pages of the table being loaded, each written while the next is read from the archive (one
 * statement in flight, on the one connection, so tables still go in parents first); once a table's
 * last page is in, its identity sequences go on from where the backup says they stood (rows.ts).
 */
class TableLoad {
  private shape: TableShape | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly db: Kysely<DB>) {}

  async page(shape: TableShape, text: string, identities: BackupHeader['identities']): Promise<void> {
    if (shape !== this.shape) await this.finish(identities);
    this.shape = shape;
    await this.writing;
    this.writing = writeRows(this.db, shape, text);
    // Heard by the next page or finish(); unheard meanwhile it would end the process.
    this.writing.catch(() => {});
  }

  async finish(identities: BackupHeader['identities']): Promise<void> {
    await this.writing;
    if (this.shape) await advanceIdentities(this.db, this.shape, identities);
    this.shape = undefined;
  }
}

/** The target must hold no installation: its schema is then built at the backup's migration. */
async function prepareSchema(db: Kysely<DB>, migration: string): Promise<Map<string, TableShape>> {
  if (await lastMigration(db)) {
    const shapes = await tableShapes(db);
    for (const shape of shapes) {
      // server_settings holds what a server made on its first start (its signing key): the backup's replaces it.
      if (shape.name === 'server_settings') continue;
      const { rows } = await sql`${sql.raw(WHOLE)} SELECT 1 FROM ${sql.raw(quoted(shape.name))} LIMIT 1`.execute(db);
      if (rows.length > 0)
        throw new Error(`the target is not empty (${shape.name} has rows): restore into a new database or data directory`);
    }
    await sql`DELETE FROM server_settings`.execute(db);
  }
  await migrateTo(db, migration);
  return new Map((await tableShapes(db)).map((shape) => [shape.name, shape]));
}

/** Every table as the manifest says (rows and digest, read back), every blob as it says (read back from the store). */
async function verify(
  db: Kysely<DB>,
  blobs: BlobStore,
  manifest: BackupManifest,
  shapes: Map<string, TableShape>,
  restored: Map<string, { size: number; sha256: string }>,
): Promise<void> {
  const problems: string[] = [];
  for (const table of manifest.tables) {
    const shape = shapes.get(table.name);
    // Taken as the backup took it: over pages of the same size, or format 1's JSON lines.
    const digest = !shape
      ? undefined
      : manifest.rowsPerPage
        ? await digestOf(db, shape, manifest.rowsPerPage)
        : await jsonDigestOf(db, shape);
    if (digest?.rows !== table.rows || digest.sha256 !== table.sha256) {
      problems.push(
        `${table.name}: ${digest?.rows ?? 0} rows restored of ${table.rows}${digest?.rows === table.rows ? ', contents differ' : ''}`,
      );
    }
  }
  for (const blob of manifest.files) {
    const written = restored.get(blob.key);
    const stored = written && (await sha256Of(await blobs.get(blob.key)));
    if (!written || written.sha256 !== blob.sha256 || stored !== blob.sha256)
      problems.push(`file ${blob.key}: not restored as backed up`);
  }
  if (problems.length > 0) throw new Error(`the restore does not match the backup's manifest:\n  ${problems.join('\n  ')}`);
}
