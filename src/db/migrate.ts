import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, type Kysely, Migrator, sql } from 'kysely';

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
    const { rows } = await sql<{ name: string }>`SELECT name FROM cairn_migrations`.execute(db);
    const applied = new Set(rows.map((row) => row.name));
    const names = await migrationNames();
    return applied.size === names.length && names.every((name) => applied.has(name));
  } catch {
    return false; // no migrations table yet: a new database
  }
}

export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
  if (await upToDate(db)) return [];
  const migrator = new Migrator({
    db,
    provider: new FileMigrationProvider({ fs, path, migrationFolder }),
    migrationTableName: 'cairn_migrations',
    migrationLockTableName: 'cairn_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
