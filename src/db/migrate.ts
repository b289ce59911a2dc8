import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, type Kysely, Migrator, sql } from 'kysely';
import { isCitus, referenceTable } from './distribution.ts';

/**
 * Migrations are the files of db/migrations, applied in the order of their names (`0001_...`).
 * Read from the folder beside this file, so the source tree (.ts) and the build (.js) agree, and
 * a new area adds a file rather than editing a list.
 */
const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** The migrations' names as Kysely's FileMigrationProvider makes them: file names without their extension. */
async function migrationNames(): Promise<string[]> {
  const files = await fs.readdir(migrationFolder);
  return files.filter((file) => /\.(js|ts)$/.test(file) && !file.endsWith('.d.ts')).map((file) => file.replace(/\.(js|ts)$/, ''));
}

/**
 * Whether the database holds exactly this code's migrations, read without importing them: every
 * `cairn` command starts with a migration, and loading ~25 files to find nothing to do cost a
 * second. Anything else (a new file, a database newer than the code) goes to the Migrator.
 */
async function upToDate<DB>(db: Kysely<DB>): Promise<boolean> {
  try {
    const schema = await currentSchema(db);
    const table = schema ? sql.id(schema, MIGRATIONS) : sql.id(MIGRATIONS);
    const { rows } = await sql<{ name: string }>`SELECT name FROM ${table}`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    const names = await migrationNames();
    return applied.size === names.length && names.every((name) => applied.has(name));
  } catch {
    return false; // no migrations table yet: a new database
  }
}

export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
  if (await upToDate(db)) return [];
  return withMigrator(db, async (migrator, connection, citus) => {
    const { error, results } = await migrator.migrateToLatest();
    if (error) throw error;
    // The migrator's own tables are global: reference tables, made so once.
    if (citus) for (const table of [MIGRATIONS, MIGRATIONS_LOCK]) await referenceOnce(connection, table);
    return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
  });
}

/**
 * Brings the schema to exactly the migration named (a restore builds the schema its backup was
 * taken at, fills it, then migrates to the latest). Refuses a name this code does not have.
 */
export async function migrateTo<DB>(db: Kysely<DB>, name: string): Promise<void> {
  if (!(await migrationNames()).includes(name)) {
    throw new Error(`migration ${name} is not one of this release's: use the Cairn release that made it, then upgrade`);
  }
  await withMigrator(db, async (migrator, connection, citus) => {
    const { error } = await migrator.migrateTo(name);
    if (error) throw error;
    if (citus) for (const table of [MIGRATIONS, MIGRATIONS_LOCK]) await referenceOnce(connection, table);
  });
}

/** The last migration the database holds, or undefined for a database Cairn never migrated. */
export async function lastMigration<DB>(db: Kysely<DB>): Promise<string | undefined> {
  const schema = await currentSchema(db);
  const { rows: tables } = await sql`SELECT 1 FROM pg_tables WHERE schemaname = ${schema} AND tablename = ${MIGRATIONS}`.execute(
    db,
  );
  if (tables.length === 0) return undefined;
  const table = schema ? sql.id(schema, MIGRATIONS) : sql.id(MIGRATIONS);
  const { rows } = await sql<{ name: string }>`SELECT max(name) AS name FROM ${table}`.execute(db);
  return rows[0]?.name ?? undefined;
}

/**
 * Runs `work` with a Migrator of this code's migrations on one connection, so a Citus session
 * setting holds for every migration (and `cairn migrate` and a test migrating down run alike).
 *
 * The migrator's tables live in the schema the migrations create theirs in (the connection's
 * current schema): Kysely otherwise takes a `cairn_migrations` of any schema for its own, so a
 * schema migrated beside an already migrated `public` would be found up to date and left empty.
 *
 * On Citus, for the length of the run:
 * - tables made with a foreign key to a reference table stay plain until distributeByTenant()
 *   (distribution.ts);
 * - Kysely runs all pending migrations in one transaction, and Citus refuses a command on a
 *   distributed function (`CREATE OR REPLACE FUNCTION`, `DROP FUNCTION`) after a parallel
 *   multi-shard operation (a CREATE INDEX, a distributed table made) earlier in the transaction:
 *   sequential mode (one connection per node) lets both sit in one run (measured, 32 shards on
 *   2 workers: the chain from nothing takes about as long either way).
 * Both are reset afterwards: the connection goes back to the pool the server then serves from.
 */
export async function withMigrator<DB, T>(
  db: Kysely<DB>,
  work: (migrator: Migrator, connection: Kysely<DB>, citus: boolean) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (connection) => {
    const citus = await isCitus(connection);
    const schema = await currentSchema(connection);
    if (citus) {
      await sql`SET citus.enable_local_reference_table_foreign_keys = off`.execute(connection);
      await sql`SET citus.multi_shard_modify_mode = 'sequential'`.execute(connection);
    }
    try {
      const migrator = new Migrator({
        db: connection,
        provider: new FileMigrationProvider({ fs, path, migrationFolder }),
        migrationTableName: MIGRATIONS,
        migrationLockTableName: MIGRATIONS_LOCK,
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      return await work(migrator, connection, citus);
    } finally {
      // A reset that fails finds the connection broken (the pool drops it): the run's own outcome stands.
      if (citus) {
        await sql`RESET citus.enable_local_reference_table_foreign_keys`.execute(connection).catch(() => {});
        await sql`RESET citus.multi_shard_modify_mode`.execute(connection).catch(() => {});
      }
    }
  });
}

const MIGRATIONS = 'cairn_migrations';
const MIGRATIONS_LOCK = 'cairn_migrations_lock';

async function referenceOnce<DB>(db: Kysely<DB>, table: string): Promise<void> {
  const { rows } = await sql`SELECT 1 FROM pg_dist_partition WHERE logicalrelid = ${table}::regclass`.execute(db);
  if (rows.length === 0) await referenceTable(db, table);
}

/** The schema unqualified names are created in: the first schema of the search path that exists. */
async function currentSchema<DB>(db: Kysely<DB>): Promise<string | null> {
  const { rows } = await sql<{ schema: string | null }>`SELECT current_schema() AS schema`.execute(db);
  return rows[0]?.schema ?? null;
}
