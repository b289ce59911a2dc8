import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as foundation from './migrations/0001_foundation.ts';
import * as patients from './migrations/0002_patients.ts';
import * as care from './migrations/0003_care.ts';
import * as notesSort from './migrations/0004_patient_notes_sort.ts';
import * as tokenSources from './migrations/0005_token_sources.ts';
import type { DB } from './schema.ts';

/** Migrations in order. Listed here rather than read from disk, so the built and the source trees agree. */
const migrations: Record<string, Migration> = {
  '0001_foundation': foundation,
  '0002_patients': patients,
  '0003_care': care,
  '0004_patient_notes_sort': notesSort,
  '0005_token_sources': tokenSources,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<DB>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'cairn_migrations',
    migrationLockTableName: 'cairn_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}
