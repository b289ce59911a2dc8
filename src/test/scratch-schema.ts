import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { type Database, openDatabase } from '../db/database.ts';

/** The prefixes of the schemas test files make for themselves on a shared server. */
const TEST_SCHEMAS = ['cairn_scratch', 'cairn_nodes', 'cairn_wakeups', 'cairn_install', 'cairn_migrations'];

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

/**
 * A schema of its own on the shared test server, first in the search path (`public` after it
 * holds the extensions): processes started on its URL migrate into it, and their job workers take
 * no other test file's jobs. On Citus its tables get 4 shards rather than the cluster's 32 (the
 * migrations run four times faster).
 */
export async function scratchUrl(url: string, prefix = 'cairn_scratch'): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 1 });
  const schema = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`.execute(admin.db);
  await sql`CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public`.execute(admin.db);
  await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(admin.db);
  const scoped = new URL(url);
  const shards = admin.kind === 'citus' ? ' -c citus.shard_count=4' : '';
  scoped.searchParams.set('options', `-c search_path=${schema},public${shards}`);
  return {
    url: scoped.toString(),
    async drop() {
      await dropTestSchema(admin, schema);
      await admin.close();
    },
  };
}
