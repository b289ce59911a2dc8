import { type Kysely, sql } from 'kysely';
import { type Config, settingsOf } from '../../config.ts';
import { type Database, openDatabase } from '../../db/database.ts';
import { lastMigration, migrateTo, migrateToLatest } from '../../db/migrate.ts';
import type { DB } from '../../db/schema.ts';
import type { BlobStore } from '../../files/blob-store.ts';
import { createBlobStore } from '../../files/files.ts';
import { fileStoreSettings } from '../../files/settings.ts';
import { dropSecondaryIndexes, rebuildIndexes, type SavedIndex } from '../indexes.ts';
import { archiveEntries, readBytes, readJson, readText } from './archive.ts';
import { BACKUP_FORMAT, type BackupHeader, type BackupManifest } from './backup.ts';
import { type BlobEntry, Hashing, sha256Of } from './blobs.ts';
import { type CopySession, linePages, openCopySession, RowsDigest } from './copy-text.ts';
import { jsonDigestOf, loadJsonLines } from './format1.ts';
import {
  advanceIdentities,
  digestOf,
  LANES,
  readingSessions,
  skippingTriggers,
  skipTriggers,
  TableDigest,
  WHOLE,
  writeRows,
} from './rows.ts';
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
  const header = await headerOf(file);
  const lanes = config.databaseUrl ? LANES : 1;
  // Formats 1 and 2 load and check a table's pages through a session each lane; format 3 through
  // sessions of COPY of its own (CopyLanes), and the schema through one. As many again for the
  // indexes' builds.
  const sessions = header.format >= 3 ? 1 : lanes;
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: sessions + lanes });
  const copying = new CopyLanes(database, config.databaseUrl, lanes);
  try {
    const blobs = createBlobStore(settingsOf(config, fileStoreSettings));
    return await readingSessions(database.db, sessions, (held) =>
      restoreInto(database.db, held, lanes, copying, blobs, { file, header }),
    );
  } finally {
    await copying.close();
    await database.close();
  }
}

/** The archive's first entry, which says how to read the rest. */
async function headerOf(file: string): Promise<BackupHeader> {
  for await (const entry of archiveEntries(file)) {
    if (entry.name !== 'cairn-backup.json') break;
    const header = await readJson<BackupHeader>(entry);
    if (header.format > BACKUP_FORMAT)
      throw new Error(`${file} is a backup of format ${header.format}; this release reads ${BACKUP_FORMAT} and older`);
    return header;
  }
  throw new Error(`${file} is not a Cairn backup (it does not start with cairn-backup.json)`);
}

/**
 * The schema, the blobs and the checks go through the first session; the tables' pages and their
 * digests are spread over `lanes` (format 3's over sessions of COPY, copy-text.ts; older formats'
 * over the sessions), and the indexes built as many at once from the pool.
 */
async function restoreInto(
  pool: Kysely<DB>,
  sessions: Kysely<DB>[],
  lanes: number,
  copying: CopyLanes,
  blobs: BlobStore,
  { file, header }: { file: string; header: BackupHeader },
): Promise<RestoreSummary> {
  const db = sessions[0]!;
  const timings = new Timings();
  // Format 3: each table's pages as the archive holds them (the manifest's SHA-256 is over them)
  // and its rows' digest, which the rows read back from the database must equal.
  const archived = new Map<string, { pages: TableDigest; rows: RowsDigest }>();
  let shapes = new Map<string, TableShape>();
  // Set aside while the tables load, built once they are all in (before the files come).
  let setAside: SavedIndex[] = [];
  let contentTypes = new Map<string, string>();
  const restored = new Map<string, { size: number; sha256: string }>();
  const loading = new TableLoad(lanes);
  for await (const entry of archiveEntries(file)) {
    if (entry.name === 'cairn-backup.json') {
      if (!header.filesOnly) {
        shapes = await prepareSchema(db, header.migration);
        setAside = await dropSecondaryIndexes(db);
        for (const session of sessions) await skippingTriggers(session, true);
        if (header.format >= 3) await copying.open();
      }
      timings.mark('schema');
    } else if (entry.name.startsWith('tables/')) {
      // Format 2: `tables/<name>/<n>`, a page each; format 1: `tables/<name>.ndjson`, the whole table.
      const name = entry.name.slice('tables/'.length).replace(/(\/\d+|\.ndjson)$/, '');
      const shape = shapes.get(name);
      if (!shape) throw new Error(`${entry.name}: the schema at ${header.migration} has no such table`);
      if (header.format === 1) {
        await loading.finish();
        await loadJsonLines(db, shape, entry);
      } else if (header.format === 2) {
        const text = await readText(entry);
        await loading.page(shape, (lane) => writeRows(sessions[lane]!, shape, text));
      } else {
        const lines = await readBytes(entry);
        const table = archived.get(name) ?? { pages: new TableDigest(), rows: new RowsDigest() };
        archived.set(name, table);
        const columns = header.columns?.[name] ?? shape.columns;
        await loading.page(shape, (lane) => copying.lanes[lane]!.write(shape, columns, lines));
        // Digested while the database writes it.
        table.pages.add(lines, 0);
        table.rows.add(lines);
      }
    } else if (entry.name === 'files.json') {
      await loading.finish();
      for (const session of sessions) await skippingTriggers(session, false);
      await copying.skipTriggers(false);
      // Every table's, the empty ones' too (a page-less table has no entry): a webhook's after_seq counts on them (rows.ts).
      for (const shape of shapes.values()) await advanceIdentities(db, shape, header.identities);
      timings.mark('rows');
      // From the pool's other connections; PGlite, one session, held here, builds them through it.
      await rebuildIndexes(lanes > 1 ? pool : db, setAside, lanes);
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
      await verify(
        header.format >= 3 ? { copying, archived, columns: header.columns ?? {} } : { sessions },
        blobs,
        manifest,
        shapes,
        restored,
      );
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
 * The pages of the table being loaded, spread over the lanes, each written while the next is
 * read from the archive. A table's pages are all in before the next table's begin, so tables still
 * go in parents first; its pages are disjoint sets of its rows, which load side by side (but for
 * a table that references itself, whose pages go in one after another; no table does today).
 */
class TableLoad {
  private shape: TableShape | undefined;
  private readonly writing: Promise<void>[];
  private next = 0;

  constructor(lanes: number) {
    this.writing = Array.from({ length: lanes }, () => Promise.resolve());
  }

  /** Writes a page of `shape` on a lane (`write` is told which) once that lane's last page is in. */
  async page(shape: TableShape, write: (lane: number) => Promise<void>): Promise<void> {
    if (shape !== this.shape) await this.finish();
    this.shape = shape;
    const lane = shape.selfReferencing ? 0 : this.next++ % this.writing.length;
    await this.writing[lane];
    const written = write(lane);
    // Heard by the lane's next page or finish(); unheard meanwhile it would end the process.
    written.catch(() => {});
    this.writing[lane] = written;
  }

  async finish(): Promise<void> {
    await Promise.all(this.writing);
    this.shape = undefined;
  }
}

/**
 * Format 3's sessions of COPY (copy-text.ts), as many as the restore's lanes, opened once the
 * header says they are needed; foreign-key triggers skipped on them as on the others.
 */
class CopyLanes {
  lanes: CopySession[] = [];

  constructor(
    private readonly database: Database,
    private readonly url: string,
    private readonly count: number,
  ) {}

  async open(): Promise<void> {
    for (let lane = 0; lane < this.count; lane += 1) this.lanes.push(await openCopySession(this.database, this.url));
    await this.skipTriggers(true);
  }

  async skipTriggers(skip: boolean): Promise<void> {
    for (const lane of this.lanes) await lane.run(skipTriggers(skip)).catch(() => {});
  }

  async close(): Promise<void> {
    for (const lane of this.lanes) await lane.close().catch(() => {});
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

/**
 * How a restore's tables are read back: format 3's through COPY (their rows' digest against the
 * archive's, copy-text.ts), older formats' in pages of the size the backup took them (their
 * SHA-256 against the manifest's).
 */
type ReadBack =
  | { sessions: Kysely<DB>[] }
  | {
      copying: CopyLanes;
      archived: Map<string, { pages: TableDigest; rows: RowsDigest }>;
      columns: Record<string, string[]>;
    };

/** Every table as the manifest says (rows and digest, read back), every blob as it says (read back from the store). */
async function verify(
  readBack: ReadBack,
  blobs: BlobStore,
  manifest: BackupManifest,
  shapes: Map<string, TableShape>,
  restored: Map<string, { size: number; sha256: string }>,
): Promise<void> {
  const problems: string[] = [];
  // The tables read back a session each at once.
  const tables = [...manifest.tables];
  const check = async (lane: number) => {
    for (let table = tables.shift(); table; table = tables.shift()) {
      const shape = shapes.get(table.name);
      const problem = !shape ? 'not in the schema' : await checkTable(readBack, lane, shape, table, manifest.rowsPerPage);
      if (problem) problems.push(`${table.name}: ${problem}`);
    }
  };
  const lanes = 'sessions' in readBack ? readBack.sessions.length : readBack.copying.lanes.length;
  await Promise.all(Array.from({ length: lanes }, (_, lane) => check(lane)));
  for (const blob of manifest.files) {
    const written = restored.get(blob.key);
    const stored = written && (await sha256Of(await blobs.get(blob.key)));
    if (!written || written.sha256 !== blob.sha256 || stored !== blob.sha256)
      problems.push(`file ${blob.key}: not restored as backed up`);
  }
  if (problems.length > 0) throw new Error(`the restore does not match the backup's manifest:\n  ${problems.join('\n  ')}`);
}

/** What is wrong with a restored table, or undefined. */
async function checkTable(
  readBack: ReadBack,
  lane: number,
  shape: TableShape,
  table: BackupManifest['tables'][number],
  rowsPerPage: number | undefined,
): Promise<string | undefined> {
  if ('sessions' in readBack) {
    const db = readBack.sessions[lane]!;
    const digest = rowsPerPage ? await digestOf(db, shape, rowsPerPage) : await jsonDigestOf(db, shape);
    if (digest.rows === table.rows && digest.sha256 === table.sha256) return undefined;
    return `${digest.rows} rows restored of ${table.rows}${digest.rows === table.rows ? ', contents differ' : ''}`;
  }
  const archived = readBack.archived.get(shape.name) ?? { pages: new TableDigest(), rows: new RowsDigest() };
  if (archived.rows.rows !== table.rows || archived.pages.hex() !== table.sha256)
    return 'the archive does not hold what the backup wrote';
  const loaded = new RowsDigest();
  for await (const page of linePages(readBack.copying.lanes[lane]!.read(shape, readBack.columns[shape.name] ?? shape.columns)))
    loaded.add(page);
  if (loaded.rows === table.rows && loaded.hex() === archived.rows.hex()) return undefined;
  return `${loaded.rows} rows restored of ${table.rows}${loaded.rows === table.rows ? ', contents differ' : ''}`;
}
