import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Kysely, type KyselyConfig, PostgresDialect, type PostgresPool } from 'kysely';
import pg from 'pg';
import { waitForDatabase } from './availability.ts';
import { isCitus } from './distribution.ts';
import type { DB } from './schema.ts';
import { isPrepared } from './sql.ts';

// pg hands int8 (count(*), bigint) back as a string; every count Cairn reads fits a double,
// and PGlite through the same driver then behaves identically.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
// A SQL `date` is a calendar day, not an instant: keep 'YYYY-MM-DD' instead of a local-midnight Date.
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

/** The engine behind `DATABASE_URL` (a Citus coordinator is PostgreSQL with the extension), or the embedded one. */
export type DatabaseKind = 'postgres' | 'citus' | 'pglite';

export interface Database {
  db: Kysely<DB>;
  /** Known once opened: a PostgreSQL server turns out to be a Citus coordinator or not. */
  kind: DatabaseKind;
  /**
   * The embedded engine, when kind is pglite: the test runner dumps it as a template, and backup and
   * restore move rows through its `/dev/blob` (cli/operating/copy-text.ts; its driver speaks no COPY).
   */
  pglite?: {
    dumpDataDir(compression: 'none'): Promise<Blob | File>;
    query<T>(sql: string, params?: unknown[], options?: { blob?: Blob }): Promise<{ rows: T[]; blob?: Blob }>;
  };
  /** PostgreSQL and Citus: hears a channel's notifications on a connection of its own (none on PGlite: one process). */
  listen?: Listen;
  close(): Promise<void>;
}

/**
 * Hears `channel`'s notifications until closed, reconnecting with backoff (0.25 s doubling to 5 s)
 * when the server goes; `onListening` runs each time it listens again (what was sent meanwhile is lost).
 */
export type Listen = (
  channel: string,
  onMessage: (payload: string) => void,
  onListening?: () => void,
) => { close(): Promise<void> };

export interface DatabaseOptions {
  /** A PostgreSQL URL; empty opens the embedded PGlite. */
  databaseUrl: string;
  /** PGlite's directory, or `memory://` for a throwaway database. */
  dataDir: string;
  poolSize: number;
  /** PGlite only: start from this dumped data directory (a tarball), used by the tests. */
  loadDataDir?: Blob;
  /** PostgreSQL only: how long to wait for an unreachable server (with backoff) before giving up; 0 tries once. */
  waitSeconds?: number;
  /** Hears every statement sent, with its parameters (the tests' capture of what routes send). */
  onStatement?: StatementListener;
}

/** Hears a statement sent, with its parameters, and whether the server refused it. */
export type StatementListener = (sql: string, parameters: readonly unknown[], failed: boolean) => void;

/** Kysely's log, turned into a statement listener: failed statements were sent too. */
function logTo(listener: StatementListener | undefined): KyselyConfig['log'] {
  return listener && ((event) => listener(event.query.sql, event.query.parameters, event.level === 'error'));
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (!options.databaseUrl) return openPglite(options);
  // One connection first, to wait for the server and learn whether it is a Citus coordinator: the
  // pool's sessions are set up for the engine (openPostgres).
  const probe = openPostgres(options.databaseUrl, 1, 'postgres');
  let kind: 'postgres' | 'citus';
  try {
    await waitForDatabase(probe.db, options.waitSeconds ?? 0);
    kind = (await isCitus(probe.db)) ? 'citus' : 'postgres';
  } finally {
    await probe.close();
  }
  return openPostgres(options.databaseUrl, options.poolSize, kind, options.onStatement);
}

function openPostgres(
  connectionString: string,
  poolSize: number,
  kind: 'postgres' | 'citus',
  onStatement?: StatementListener,
): Database {
  // JIT compiles a plan once its estimated cost is high (a count over many rows); for short API
  // queries the compile takes longer than the query saves (~0.5 s measured), so it stays off.
  // Prepared statements use their generic plan at once (PREPARED below). Citus cannot make a
  // distributed generic plan of a statement of several data-modifying CTEs (a write's flush):
  // there PostgreSQL decides per statement (`auto`), and Citus keeps its own plan of a router query.
  // A connection attempt gives up after 5 s, so a request fails (503) instead of hanging when the
  // server is unreachable.
  const planCacheMode = kind === 'citus' ? 'auto' : 'force_generic_plan';
  // The URL's own `options` (`?options=-c search_path=…`) are kept: pg would drop them for ours.
  const urlOptions = new URL(connectionString).searchParams.get('options');
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    options: `${urlOptions ? `${urlOptions} ` : ''}-c jit=off -c plan_cache_mode=${planCacheMode}`,
    connectionTimeoutMillis: 5000,
  });
  // A client that loses its server (a restart, a failover) emits 'error'. Unheard, that event kills
  // the process. Idle clients are heard by the pool; a client checked out by a request is heard here:
  // its query in flight fails on its own (503), and the pool drops the broken client on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }), log: logTo(onStatement) });
  const listen: Listen = (channel, onMessage, onListening) => listening(connectionString, channel, onMessage, onListening);
  return { db, kind, listen, close: () => db.destroy() };
}

/** One connection outside the pool that LISTENs (on Citus, to the coordinator, where notifications are sent). */
function listening(connectionString: string, channel: string, onMessage: (payload: string) => void, onListening?: () => void) {
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = 250;
  const connect = async () => {
    if (closed) return;
    const candidate = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
    let again = false;
    const tryAgain = () => {
      if (again) return;
      again = true;
      if (client === candidate) client = undefined;
      if (!closed) retry = setTimeout(connect, delay).unref();
      delay = Math.min(delay * 2, 5000);
    };
    // A connection lost is heard here and made again; unheard, its 'error' would end the process.
    candidate.on('error', tryAgain);
    candidate.on('end', tryAgain);
    candidate.on('notification', (message) => {
      if (message.channel === channel) onMessage(message.payload ?? '');
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${candidate.escapeIdentifier(channel)}`);
      client = candidate;
      delay = 250;
      if (closed) await candidate.end();
      else onListening?.();
    } catch {
      tryAgain();
      await candidate.end().catch(() => {});
    }
  };
  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}

/**
 * The pool as Kysely sees it, with one difference: a statement marked PREPARED (db/sql.ts) is
 * sent as a named prepared statement, named by its text. pg prepares it once per connection and
 * PostgreSQL then plans it once (a generic plan after five custom ones, when that is no worse).
 */
function preparingPool(pool: pg.Pool): PostgresPool {
  // Prepared texts are a handful of hot statements; past this many, something builds texts it
  // should not (a list spelled out value by value), and the rest run unprepared rather than pile
  // up plans on every connection.
  const MAX_PREPARED = 500;
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name && names.size < MAX_PREPARED) {
      name = `cairn_${createHash('sha1').update(text).digest('base64url')}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: ((text: string, values: unknown[]) => {
          const name = isPrepared(text) ? nameOf(text) : undefined;
          return name ? client.query({ name, text, values }) : client.query(text, values);
        }) as never,
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

async function openPglite(options: DatabaseOptions): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { btree_gin } = await import('@electric-sql/pglite/contrib/btree_gin');
  const inMemory = options.dataDir.startsWith('memory://');
  const releaseLock = inMemory ? async () => {} : await lockDataDir(options.dataDir);
  try {
    // Extensions must be loaded on every open: a directory holding their indexes will not reopen without them.
    const pglite = await PGlite.create({
      dataDir: inMemory ? undefined : path.join(options.dataDir, 'pglite'),
      extensions: { pg_trgm, btree_gin },
      ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    });
    // PGlite is one session: a pool of one serialises transactions instead of interleaving them.
    const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1 } as pg.PoolConfig);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: logTo(options.onStatement) });
    return {
      db,
      kind: 'pglite',
      pglite,
      async close() {
        await db.destroy();
        await pglite.close();
        await releaseLock();
      },
    };
  } catch (error) {
    await releaseLock();
    throw error;
  }
}

export class DataDirLockedError extends Error {}

/**
 * PGlite does not lock its directory, and a second process writing to it silently loses data.
 * An exclusive lock file (created with O_EXCL) holding our pid refuses the second process;
 * a lock left by a process that no longer runs is taken over.
 */
async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, 'cairn.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return async () => fs.rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(fs.readFileSync(lockPath, 'utf8'));
      if (holder && isRunning(holder)) {
        throw new DataDirLockedError(
          `${dataDir} is in use by another Cairn process (pid ${holder}). ` +
            'Stop it, or set DATABASE_URL to share a PostgreSQL server between processes.',
        );
      }
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new DataDirLockedError(`Could not lock ${dataDir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
