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
import { advanceIdentities, digestOf, LANES, readingSessions, skippingTriggers, WHOLE, writeRows } from './rows.ts';
import { quoted, type TableShape, tableShapes } from './tables.ts';
import { Timings } from './timings.ts';

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
  timings: Timings;
}

export async function restore(config: Config, file: string): Promise<RestoreSummary> {
  const lanes = config.databaseUrl ? LANES : 1;
  // The lanes' sessions, and as many again for the indexes' builds.
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 * lanes });
  try {
    const blobs = createBlobStore(settingsOf(config, fileStoreSettings));
    return await readingSessions(database.db, lanes, (sessions) => restoreInto(database.db, sessions, blobs, file));
  } finally {
    await database.close();
  }
}

/**
 * The schema, the blobs and the checks go through the first session; the tables' pages and their
 * digests are spread over them all, and the indexes built as many at once from the pool.
 */
async function restoreInto(pool: Kysely<DB>, sessions: Kysely<DB>[], blobs: BlobStore, file: string): Promise<RestoreSummary> {
  const db = sessions[0]!;
  const timings = new Timings();
  let header: BackupHeader | undefined;
  let shapes = new Map<string, TableShape>();
  // Set aside while the tables load, built once they are all in (before the files come).
  let setAside: SavedIndex[] = [];
  let contentTypes = new Map<string, string>();
  const restored = new Map<string, { size: number; sha256: string }>();
  const loading = new TableLoad(sessions);
  for await (const entry of archiveEntries(file)) {
    if (entry.name === 'cairn-backup.json') {
      header = await readJson<BackupHeader>(entry);
      if (header.format > BACKUP_FORMAT)
        throw new Error(`${file} is a backup of format ${header.format}; this release reads ${BACKUP_FORMAT} and older`);
      if (!header.filesOnly) {
        shapes = await prepareSchema(db, header.migration);
        setAside = await dropSecondaryIndexes(db);
        for (const session of sessions) await skippingTriggers(session, true);
      }
      timings.mark('schema');
    } else if (!header) {
      throw new Error(`${file} is not a Cairn backup (it does not start with cairn-backup.json)`);
    } else if (entry.name.startsWith('tables/')) {
      // Format 2: `tables/<name>/<n>`, a page each; format 1: `tables/<name>.ndjson`, the whole table.
      const name = entry.name.slice('tables/'.length).replace(/(\/\d+|\.ndjson)$/, '');
      const shape = shapes.get(name);
      if (!shape) throw new Error(`${entry.name}: the schema at ${header.migration} has no such table`);
      if (header.format === 1) {
        await loading.finish();
        await loadJsonLines(db, shape, entry);
      } else {
        await loading.page(shape, await readText(entry));
      }
    } else if (entry.name === 'files.json') {
      await loading.finish();
      for (const session of sessions) await skippingTriggers(session, false);
      // Every table's, the empty ones' too (a page-less table has no entry): a webhook's after_seq counts on them (rows.ts).
      for (const shape of shapes.values()) await advanceIdentities(db, shape, header.identities);
      timings.mark('rows');
      // From the pool's other connections; PGlite, one session, held here, builds them through it.
      await rebuildIndexes(sessions.length > 1 ? pool : db, setAside, sessions.length);
      setAside = [];
      timings.mark('indexes');
      contentTypes = new Map((await readJson<BlobEntry[]>(entry)).map((blob) => [blob.key, blob.contentType]));
    } else if (entry.name.startsWith('files/')) {
      const key = entry.name.slice('files/'.length);
      const hashing = new Hashing();
      await blobs.put(key, entry.stream.pipe(hashing), contentTypes.get(key) ?? 'application/octet-stream');
      restored.set(key, { size: hashing.bytes, sha256: hashing.hex() });
    } else if (entry.name === 'manifest.json') {
      const manifest = await readJson<BackupManifest>(entry);
      timings.mark('files');
      await verify(sessions, blobs, manifest, shapes, restored);
      timings.mark('check');
      const upgradedBy = header.filesOnly ? [] : await migrateToLatest(db);
      timings.mark('upgrade');
      return {
        migration: header.migration,
        rows: manifest.tables.reduce((sum, table) => sum + table.rows, 0),
        files: restored.size,
        upgradedBy,
        timings,
      };
    }
  }
  throw new Error(`${file} ends before its manifest: the backup is incomplete`);
}

/**
 * The pages of the table being loaded, spread over the sessions, each written while the next is
 * read from the archive. A table's pages are all in before the next table's begin, so tables still
 * go in parents first; its pages are disjoint ranges of its key, which load side by side (but for
 * a table that references itself, whose pages go in one after another).
 */
class TableLoad {
  private shape: TableShape | undefined;
  private readonly writing: Promise<void>[];
  private next = 0;

  constructor(private readonly sessions: Kysely<DB>[]) {
    this.writing = sessions.map(() => Promise.resolve());
  }

  async page(shape: TableShape, text: string): Promise<void> {
    if (shape !== this.shape) await this.finish();
    this.shape = shape;
    const lane = shape.selfReferencing ? 0 : this.next++ % this.sessions.length;
    await this.writing[lane];
    const written = writeRows(this.sessions[lane]!, shape, text);
    // Heard by the lane's next page or finish(); unheard meanwhile it would end the process.
    written.catch(() => {});
    this.writing[lane] = written;
  }

  async finish(): Promise<void> {
    await Promise.all(this.writing);
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
  sessions: Kysely<DB>[],
  blobs: BlobStore,
  manifest: BackupManifest,
  shapes: Map<string, TableShape>,
  restored: Map<string, { size: number; sha256: string }>,
): Promise<void> {
  const problems: string[] = [];
  // The tables read back a session each at once, as the backup took them: over pages of the same size, or format 1's JSON lines.
  const tables = [...manifest.tables];
  const check = async (db: Kysely<DB>) => {
    for (let table = tables.shift(); table; table = tables.shift()) {
      const shape = shapes.get(table.name);
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
  };
  await Promise.all(sessions.map(check));
  for (const blob of manifest.files) {
    const written = restored.get(blob.key);
    const stored = written && (await sha256Of(await blobs.get(blob.key)));
    if (!written || written.sha256 !== blob.sha256 || stored !== blob.sha256)
      problems.push(`file ${blob.key}: not restored as backed up`);
  }
  if (problems.length > 0) throw new Error(`the restore does not match the backup's manifest:\n  ${problems.join('\n  ')}`);
}
