import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, type Kysely, Migrator } from 'kysely';

/**
 * Migrations are the files of db/migrations, applied in the order of their names (`0001_...`).
 * Read from the folder beside this file, so the source tree (.ts) and the build (.js) agree, and
 * a new area adds a file rather than editing a list.
 */
const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
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
