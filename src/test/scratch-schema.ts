import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase } from '../db/database.ts';

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
      await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(admin.db);
      await admin.close();
    },
  };
}
