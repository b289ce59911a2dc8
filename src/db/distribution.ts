import { type Kysely, sql } from 'kysely';

/**
 * How each table is spread over a Citus cluster, said by the migration that creates it, right
 * after its CREATE TABLE: `distributeByTenant` (its rows sharded by `tenant_id`, co-located with
 * every other tenant table, so one tenant's statement runs on one node) or `referenceTable` (a
 * global table, copied to every node). On plain PostgreSQL and PGlite both do nothing, so the
 * same migrations serve all three. A table added next year is distributed the day it is made.
 *
 * The migrations run on one connection with `citus.enable_local_reference_table_foreign_keys`
 * off (migrate.ts): with it on, a table made with a foreign key to a reference table becomes a
 * "Citus local table", which can never be distributed after.
 */

/** Whether the database is a Citus coordinator (the extension is installed). */
export async function isCitus<DB>(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ citus: boolean }>`
    SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus`.execute(db);
  return rows[0]?.citus === true;
}

/** The Citus release and its active workers, for the start-up log; undefined off Citus. */
export async function citusCluster<DB>(db: Kysely<DB>): Promise<{ version: string; workers: number } | undefined> {
  if (!(await isCitus(db))) return undefined;
  const { rows } = await sql<{ version: string; workers: number }>`
    SELECT (SELECT extversion FROM pg_extension WHERE extname = 'citus') AS version,
           (SELECT count(*)::int FROM citus_get_active_worker_nodes()) AS workers`.execute(db);
  return rows[0];
}

/** The table every tenant table is co-located with: the first one distributed (migration 0001). */
const COLOCATION_ANCHOR = 'instances';

/** Shards a tenant table by `tenant_id`, co-located with the others; nothing off Citus. */
export async function distributeByTenant<DB>(db: Kysely<DB>, table: string): Promise<void> {
  if (!(await isCitus(db))) return;
  const colocateWith = table === COLOCATION_ANCHOR ? 'none' : COLOCATION_ANCHOR;
  await sql`SELECT create_distributed_table(${table}::regclass, 'tenant_id', colocate_with => ${colocateWith})`.execute(db);
}

/** Copies a global table (no tenant) to every node; nothing off Citus. */
export async function referenceTable<DB>(db: Kysely<DB>, table: string): Promise<void> {
  if (!(await isCitus(db))) return;
  await sql`SELECT create_reference_table(${table}::regclass)`.execute(db);
}
