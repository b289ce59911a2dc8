import { type Kysely, sql } from 'kysely';
import type { Config } from '../../config.ts';
import { openDatabase } from '../../db/database.ts';
import { lockSession } from '../../db/locks.ts';
import { lastMigration, migrateTo, migrateToLatest } from '../../db/migrate.ts';
import type { DB } from '../../db/schema.ts';
import type { BlobStore } from '../../files/blob-store.ts';
import { S3BlobStore } from '../../files/s3-store.ts';
import { dropSecondaryIndexes, rebuildIndexes, type SavedIndex } from '../indexes.ts';
import { progressBar } from '../progress.ts';
import { blobsNamed, sha256Of } from './blobs.ts';
import {
  advanceIdentities,
  countOf,
  digestOf,
  identityPositions,
  LANES,
  lastKey,
  readingSessions,
  readRows,
  skippingTriggers,
  TableDigest,
  writeRows,
} from './rows.ts';
import { readInstallation, type Source } from './source.ts';
import { type TableShape, tableShapes } from './tables.ts';
import { Timings } from './timings.ts';

/**
 * `cairn copy --to postgres://… [--files-to s3://bucket?…]`: the whole installation into a
 * PostgreSQL server (plain or a Citus coordinator) and, if asked, its blobs into S3. The source
 * must be quiet (a server on it would go on writing to the old database). Each table is copied
 * parents first, in key order (the target's secondary indexes built after), so an interrupted
 * copy resumes after the greatest key the target holds, and blobs already in the target store are skipped; a table `cairn_copy` marks the target
 * as a copy under way until the end. Identity sequences (the outbox's and the queue's `seq`) go
 * on from where the source's stood, not from the rows left. Verified at the end: every table's
 * rows and SHA-256 read from both sides, the sequences, every blob's SHA-256 read back from the
 * target store.
 */
export interface CopySummary {
  tables: number;
  rows: number;
  files: number;
  resumed: boolean;
  timings: Timings;
}

const MARK = 'cairn_copy';

export async function copy(config: Config, to: string, filesTo: string | undefined): Promise<CopySummary> {
  if (!/^postgres(ql)?:\/\//.test(to)) throw new Error('--to takes a PostgreSQL URL (postgres://user@host:port/database)');
  const targetBlobs = filesTo ? s3StoreOf(filesTo, config) : undefined;
  return readInstallation(config, 'refuse', async (source) => {
    // LANES sessions write and check; the indexes are built as many at once on connections of their own.
    const target = await openDatabase({ databaseUrl: to, dataDir: '', poolSize: 2 * LANES, waitSeconds: 10 });
    try {
      return await readingSessions(target.db, LANES, async (sessions) => {
        const db = sessions[0]!;
        // One copy at a time into a target; a copy killed part way still has its last statement
        // running on the server, which must end before a resumed copy reads where it stopped.
        await lockSession(db, 'cairn copy');
        const timings = new Timings();
        const { resumed, setAside } = await prepareTarget(source, db);
        timings.mark('schema');
        const shapes = await tableShapes(source.db);
        for (const session of sessions) await skippingTriggers(session, true);
        const { rows, digests } = await copyTables(source, sessions, shapes);
        for (const session of sessions) await skippingTriggers(session, false);
        timings.mark('rows');
        await rebuildIndexes(target.db, setAside, LANES);
        timings.mark('indexes');
        const files = targetBlobs ? await copyBlobs(source, targetBlobs, shapes) : 0;
        timings.mark('files');
        await verify(source, sessions, shapes, digests, targetBlobs);
        timings.mark('check');
        await sql`DROP TABLE ${sql.raw(MARK)}`.execute(db);
        await migrateToLatest(db);
        timings.mark('upgrade');
        return { tables: shapes.length, rows, files, resumed, timings };
      });
    } finally {
      await target.close();
    }
  });
}

/**
 * A new target gets the source's schema, its secondary indexes set aside (built after the rows,
 * as pg_restore does), and the mark, which keeps what was set aside; one marked is a copy to
 * resume; anything else is refused.
 */
async function prepareTarget(source: Source, db: Kysely<DB>): Promise<{ resumed: boolean; setAside: SavedIndex[] }> {
  const migration = (await lastMigration(source.db))!;
  const { rows: marked } = await sql`
    SELECT 1 FROM pg_tables WHERE tablename = ${MARK} AND schemaname = current_schema()`.execute(db);
  if (marked.length > 0) {
    const at = await lastMigration(db);
    if (at !== migration) throw new Error(`the copy under way in the target is at ${at}, the source at ${migration}`);
    const { rows } = await sql<{ indexes: SavedIndex[] }>`SELECT indexes FROM ${sql.raw(MARK)}`.execute(db);
    return { resumed: true, setAside: rows[0]?.indexes ?? [] };
  }
  if (await lastMigration(db)) throw new Error('the target already holds a Cairn installation: copy into a new, empty database');
  await migrateTo(db, migration);
  const setAside = await dropSecondaryIndexes(db);
  await sql`CREATE TABLE ${sql.raw(MARK)} (started_at timestamptz NOT NULL DEFAULT now(), indexes jsonb NOT NULL)`.execute(db);
  await sql`INSERT INTO ${sql.raw(MARK)} (indexes) VALUES (${JSON.stringify(setAside)}::jsonb)`.execute(db);
  return { resumed: false, setAside };
}

type Digest = { rows: number; sha256: string };

/**
 * Each table's rows after the greatest key the target holds, read from the source a page at a
 * time and written on the target's sessions side by side (the next page read meanwhile). Answers
 * the source's digest of each table read from its start, taken from the pages as they pass: the
 * check need not read them again.
 */
async function copyTables(
  source: Source,
  sessions: Kysely<DB>[],
  shapes: readonly TableShape[],
): Promise<{ rows: number; digests: Map<string, Digest> }> {
  const db = sessions[0]!;
  let total = 0;
  let done = 0;
  for (const shape of shapes) {
    total += await countOf(source.db, shape);
    done += await countOf(db, shape);
  }
  // The outbox's and the queue's numbers go on from the source's, not from its rows (rows.ts).
  const positions = await identityPositions(source.db, shapes);
  const digests = new Map<string, Digest>();
  const bar = progressBar('rows  [{bar}] {percentage}% | {value}/{total} | {table}');
  bar.start(total, done, { table: '' });
  try {
    const writer = new InOrder(sessions);
    for (const shape of shapes) {
      bar.update({ table: shape.name });
      const after = await lastKey(db, shape);
      const digest = after ? undefined : new TableDigest();
      for await (const page of readRows(source.db, shape, after)) {
        digest?.add(page.text, page.count);
        await writer.write(shape, page.text, () => bar.increment(page.count));
      }
      await writer.settled();
      if (digest) digests.set(shape.name, { rows: digest.rows, sha256: digest.hex() });
      await advanceIdentities(db, shape, positions);
    }
  } finally {
    bar.stop();
  }
  return { rows: total, digests };
}

/**
 * Pages written side by side, each in a transaction of its own committed only after the page
 * before it: whatever stops the copy, the target holds a table's first pages and none after, so
 * a resumed copy goes on after its greatest key. A table that references itself is written on one
 * session, a page after another.
 */
class InOrder {
  private readonly lanes: Promise<void>[];
  private committed: Promise<void> = Promise.resolve();
  private next = 0;

  constructor(private readonly sessions: Kysely<DB>[]) {
    this.lanes = sessions.map(() => Promise.resolve());
  }

  async write(shape: TableShape, text: string, onCommitted: () => void): Promise<void> {
    const lane = shape.selfReferencing ? 0 : this.next++ % this.sessions.length;
    await this.lanes[lane];
    const session = this.sessions[lane]!;
    const before = this.committed;
    const written = (async () => {
      await sql`BEGIN`.execute(session);
      try {
        await writeRows(session, shape, text);
        await before;
        await sql`COMMIT`.execute(session);
      } catch (error) {
        await sql`ROLLBACK`.execute(session).catch(() => {});
        throw error;
      }
      onCommitted();
    })();
    // Heard by the lane's next page or settled(); unheard meanwhile it would end the process.
    written.catch(() => {});
    this.lanes[lane] = written;
    this.committed = written;
  }

  async settled(): Promise<void> {
    await Promise.all(this.lanes);
  }
}

async function copyBlobs(source: Source, target: BlobStore, shapes: readonly TableShape[]): Promise<number> {
  const blobs = await blobsNamed(source.db, shapes);
  const bar = progressBar('files [{bar}] {percentage}% | {value}/{total}');
  bar.start(blobs.length, 0);
  try {
    for (const blob of blobs) {
      const size = await source.blobs.size(blob.key);
      if (size === undefined) throw new Error(`the file store has no blob under ${blob.key}, which the database names`);
      // Copied already (an interrupted run): the check at the end reads it back anyway.
      if ((await target.size(blob.key)) !== size) await target.put(blob.key, await source.blobs.get(blob.key), blob.contentType);
      bar.increment();
    }
  } finally {
    bar.stop();
  }
  return blobs.length;
}

/** Each table's digest on both sides (the source's from the copy where it read the whole table), the target's tables read a session each at once. */
async function verify(
  source: Source,
  sessions: Kysely<DB>[],
  shapes: readonly TableShape[],
  digests: Map<string, Digest>,
  targetBlobs: BlobStore | undefined,
): Promise<void> {
  const db = sessions[0]!;
  const problems: string[] = [];
  const tables = [...shapes];
  const check = async (session: Kysely<DB>) => {
    for (let shape = tables.shift(); shape; shape = tables.shift()) {
      const [from, to] = await Promise.all([digests.get(shape.name) ?? digestOf(source.db, shape), digestOf(session, shape)]);
      if (from.rows !== to.rows || from.sha256 !== to.sha256) {
        problems.push(`${shape.name}: ${to.rows} rows of ${from.rows}${from.rows === to.rows ? ', contents differ' : ''}`);
      }
    }
  };
  await Promise.all(sessions.map(check));
  // The numbers the target gives next come after every one the source gave (a webhook's after_seq).
  const [given, next] = [await identityPositions(source.db, shapes), await identityPositions(db, shapes)];
  for (const [identity, position] of Object.entries(given)) {
    if ((next[identity] ?? 0) < position)
      problems.push(`${identity}: the target numbers on from ${next[identity]}, the source from ${position}`);
  }
  if (targetBlobs) {
    for (const blob of await blobsNamed(source.db, shapes)) {
      const [from, to] = [await sha256Of(await source.blobs.get(blob.key)), await sha256Of(await targetBlobs.get(blob.key))];
      if (from !== to) problems.push(`file ${blob.key}: the copy differs`);
    }
  }
  if (problems.length > 0)
    throw new Error(`the copy does not match its source:\n  ${problems.join('\n  ')}\nRun the copy again to resume it.`);
}

/**
 * `s3://bucket?region=…&endpoint=…&forcePathStyle=true`: the target store; its credentials are
 * CAIRN_S3_ACCESS_KEY_ID and CAIRN_S3_SECRET_ACCESS_KEY when set, else the AWS SDK's own chain.
 */
function s3StoreOf(url: string, config: Config): S3BlobStore {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || !parsed.hostname || (parsed.pathname !== '' && parsed.pathname !== '/')) {
    throw new Error('--files-to takes s3://<bucket>[?region=R&endpoint=URL&forcePathStyle=true]');
  }
  const q = parsed.searchParams;
  return new S3BlobStore({
    driver: 's3',
    bucket: parsed.hostname,
    region: q.get('region') ?? 'us-east-1',
    endpoint: q.get('endpoint') ?? '',
    accessKeyId: config.env.CAIRN_S3_ACCESS_KEY_ID ?? '',
    secretAccessKey: config.env.CAIRN_S3_SECRET_ACCESS_KEY ?? '',
    forcePathStyle: q.get('forcePathStyle') === 'true',
  });
}
