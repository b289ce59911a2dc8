import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../db/database.ts';

/** The prefixes of the schemas test files make for themselves on a shared server. */
const TEST_SCHEMAS = ['cairn_nodes', 'cairn_wakeups', 'cairn_install', 'cairn_migrations'] as const;

/**
 * Drops a test file's own schema when it is done, except on Citus. There a DROP SCHEMA beside
 * another test file's migration (which makes reference tables, after which Citus copies every
 * reference table to every node) made that migration fail on a shard the drop had just removed
 * ("relation cairn_install_….server_settings_105110 does not exist", CI on 2026-12-04). On Citus
 * the runner drops them all once every file has ended (`dropTestSchemas`).
 */
export async function dropTestSchema(admin: Database, schema: string): Promise<void> {
  if (admin.kind === 'citus') return;
  await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(admin.db);
}

/** Every test file's schema left on the server (scripts/run-tests.ts, after the files have run). */
export async function dropTestSchemas(db: Database['db']): Promise<number> {
  const { rows } = await sql<{ name: string }>`
    SELECT nspname AS name FROM pg_namespace WHERE nspname ~ ${`^(${TEST_SCHEMAS.join('|')})_[0-9a-f]{12}$`}`.execute(db);
  for (const { name } of rows) await sql`DROP SCHEMA ${sql.id(name)} CASCADE`.execute(db);
  return rows.length;
}

/** A test file's own schema on the shared server (`scratchSchema`). */
export interface ScratchSchema {
  schema: string;
  /** The server's URL with the schema first in its search path: processes started on it migrate into it. */
  url: string;
  citus: boolean;
  /** Drops the schema (dropTestSchema: not on Citus, where the runner does); a schema left is dropped by the runner. */
  drop(): Promise<void>;
}

/**
 * A schema of its own on the shared test server, first in the search path (`public` after it
 * holds the extensions the migrations create if they are missing, made there first as `cairn
 * migrate` would, so they are not made inside a schema dropped at the end): processes started on
 * its URL migrate into it, and their job workers take no other test file's jobs. On Citus its
 * tables get 4 shards rather than the cluster's 32 (the migrations run four times faster). Every
 * test file that needs an empty database beside the others' takes one here; `prefix` names the
 * file's kind (TEST_SCHEMAS).
 */
export async function scratchSchema(url: string, prefix: (typeof TEST_SCHEMAS)[number]): Promise<ScratchSchema> {
  const schema = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const citus = await asAdmin(url, async (admin) => {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`.execute(admin.db);
    await sql`CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public`.execute(admin.db);
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(admin.db);
    return admin.kind === 'citus';
  });
  const scoped = new URL(url);
  scoped.searchParams.set('options', `-c search_path=${schema},public${citus ? ' -c citus.shard_count=4' : ''}`);
  return { schema, url: scoped.toString(), citus, drop: () => asAdmin(url, (admin) => dropTestSchema(admin, schema)) };
}

/** `work` on a connection of its own to the server, closed after: a test file keeps none open between. */
async function asAdmin<T>(url: string, work: (admin: Database) => Promise<T>): Promise<T> {
  const admin = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 1 });
  try {
    return await work(admin);
  } finally {
    await admin.close();
  }
}
