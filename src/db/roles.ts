import { type Kysely, sql } from 'kysely';
import type { DatabaseKind } from './database.ts';

/**
 * The role Cairn serves with, apart from the one that owns the tables (DECISIONS "Access log"):
 * the access log is append-only for whoever serves. The owner (the role that migrates) keeps every
 * right; `cairn database grant <role>` gives a serving role what serving needs, and on the access
 * log's two tables SELECT and INSERT only, so no statement sent while serving (a bug, an injected
 * one) can change or remove a record. Retention still removes old records: through
 * `cairn_access_log_remove` (migration 0041), which runs with its owner's rights and writes the
 * removal into the chain. Not on the embedded database, whose file is its own owner.
 */

/** The tables the serving role may only read and add to. */
export const APPEND_ONLY = ['access_log', 'access_log_seals'] as const;

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Grants `role` what serving needs on the current schema, as the tables' owner: every table but
 * the append-only ones in full, those to read and insert, the sequences and functions (the
 * retention's among them); and the same on tables later migrations make (default privileges).
 */
export async function grantServing<DB>(db: Kysely<DB>, role: string): Promise<string[]> {
  if (!ROLE_NAME.test(role)) throw new Error(`"${role}" is not a role name Cairn grants to (lower-case letters, digits, _)`);
  const who = sql.id(role);
  const { rows } = await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db);
  const schema = sql.id(rows[0]!.schema);
  const tables = (
    await sql<{ name: string }>`
      SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`.execute(db)
  ).rows.map((row) => row.name);
  await sql`GRANT USAGE ON SCHEMA ${schema} TO ${who}`.execute(db);
  for (const table of tables) {
    const appendOnly = (APPEND_ONLY as readonly string[]).includes(table);
    await sql`REVOKE ALL ON TABLE ${sql.id(table)} FROM ${who}`.execute(db);
    if (appendOnly) await sql`GRANT SELECT, INSERT ON TABLE ${sql.id(table)} TO ${who}`.execute(db);
    else await sql`GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE ${sql.id(table)} TO ${who}`.execute(db);
  }
  await sql`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${schema} TO ${who}`.execute(db);
  await sql`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${schema} TO ${who}`.execute(db);
  await sql`ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${who}`.execute(db);
  await sql`ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT USAGE, SELECT ON SEQUENCES TO ${who}`.execute(db);
  await sql`ALTER DEFAULT PRIVILEGES IN SCHEMA ${schema} GRANT EXECUTE ON FUNCTIONS TO ${who}`.execute(db);
  return tables;
}

/**
 * Whether the role serving may change or remove access records or their seals: true for the tables' owner and a
 * superuser, which a server should not serve as (it says so at start). False on the embedded database.
 */
export async function accessLogWritable<DB>(db: Kysely<DB>, kind: DatabaseKind): Promise<boolean> {
  if (kind === 'pglite') return false;
  const { rows } = await sql<{ writable: boolean }>`
    SELECT bool_or(has_table_privilege(log, 'UPDATE') OR has_table_privilege(log, 'DELETE')
      OR has_table_privilege(log, 'TRUNCATE')) AS writable
    FROM unnest(ARRAY['access_log', 'access_log_seals']) AS log`.execute(db);
  return rows[0]?.writable ?? false;
}
