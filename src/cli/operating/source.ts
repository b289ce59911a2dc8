import fs from 'node:fs';
import path from 'node:path';
import { type Kysely, sql } from 'kysely';
import { type Config, settingsOf } from '../../config.ts';
import { type Database, type DatabaseKind, DataDirLockedError, openDatabase } from '../../db/database.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import type { DB } from '../../db/schema.ts';
import type { BlobStore } from '../../files/blob-store.ts';
import { createBlobStore } from '../../files/files.ts';
import { holdBlobs, releaseBlobs } from '../../files/holds.ts';
import { fileStoreSettings } from '../../files/settings.ts';
import { systemClock } from '../../http/services.ts';
import { type CopySession, openCopySession } from './copy-text.ts';
import { askServer } from './operator-socket.ts';
import { readingSession } from './rows.ts';

/**
 * An installation as backup and copy read it: one consistent snapshot of its database (a
 * read-only repeatable-read transaction), and its file store, whose removals are held meanwhile
 * (files/holds.ts), so every file row of the snapshot keeps its blob until the reader is done.
 */
export interface Source {
  /** The snapshot: every read through it sees the database as of one instant. */
  db: Kysely<DB>;
  engine: DatabaseKind;
  blobs: BlobStore;
  /**
   * A session moving rows as COPY text (copy-text.ts) that reads the same snapshot: on a server its
   * own connection on the snapshot `db` exported, on PGlite its one session. Opened on first use,
   * closed with the snapshot. On Citus the snapshot is the coordinator's: the workers are read at
   * this session's own instants, so what a backup takes from the rows it takes from these rows.
   */
  rows(): Promise<CopySession>;
}

/** A hold outlives any backup we expect; one whose process died ends by itself after this. */
const HOLD_MS = 12 * 60 * 60_000;

/**
 * Opens the configured installation and runs `read` on a snapshot of it. The embedded database,
 * when a server is using it, is snapshotted by that server (`whileServing: 'snapshot'`, a backup)
 * or refused (`'refuse'`, a copy: a move needs the installation quiet, or writes after it are lost).
 */
export async function readInstallation<T>(
  config: Config,
  whileServing: 'snapshot' | 'refuse',
  read: (source: Source) => Promise<T>,
): Promise<T> {
  const blobs = createBlobStore(settingsOf(config, fileStoreSettings));
  const until = new Date(systemClock.now().getTime() + HOLD_MS);
  let database: Database;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    if (whileServing === 'refuse') {
      throw new Error(
        `${error.message}\nA copy moves a quiet installation: stop the server first (cairn backup works while it serves).`,
      );
    }
    return readServersSnapshot(config, blobs, until, read);
  }
  try {
    // A quiet embedded database may be a release behind: it is brought up to date, as serve would.
    if (database.kind === 'pglite') await migrateToLatest(database.db);
    const holdId = await holdBlobs(database.db, 'backup', until);
    try {
      return await inSnapshot(database, config.databaseUrl, blobs, read);
    } finally {
      await releaseBlobs(database.db, holdId);
    }
  } finally {
    await database.close();
  }
}

/** A running PGlite server copies its database directory for us (operator-socket.ts); we read the copy. */
async function readServersSnapshot<T>(config: Config, blobs: BlobStore, until: Date, read: (source: Source) => Promise<T>) {
  const folder = fs.mkdtempSync(path.join(config.dataDir, '.snapshot-'));
  try {
    const { holdId } = await askServer(config.dataDir, {
      command: 'snapshot',
      to: path.join(folder, 'pglite'),
      holdUntil: until.toISOString(),
    });
    try {
      const copy = await openDatabase({ databaseUrl: '', dataDir: folder, poolSize: 1 });
      try {
        return await inSnapshot(copy, '', blobs, read);
      } finally {
        await copy.close();
      }
    } finally {
      await askServer(config.dataDir, { command: 'release', holdId: holdId! });
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

function inSnapshot<T>(database: Database, url: string, blobs: BlobStore, read: (source: Source) => Promise<T>): Promise<T> {
  return database.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      await readingSession(trx);
      let session: Promise<CopySession> | undefined;
      const rows = () => {
        session ??= (async () => {
          if (database.pglite) return openCopySession(database, url);
          const { rows } = await sql<{ id: string }>`SELECT pg_export_snapshot() AS id`.execute(trx);
          return openCopySession(database, url, rows[0]!.id);
        })();
        return session;
      };
      try {
        return await read({ db: trx, engine: database.kind, blobs, rows });
      } finally {
        await session?.then((opened) => opened.close()).catch(() => {});
      }
    });
}
