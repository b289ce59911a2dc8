import { type Kysely, sql } from 'kysely';
import { progressBar } from './progress.ts';

/**
 * Secondary indexes set aside for a large load and built once after it, as pg_restore does:
 * building an index over a loaded table is several times faster than maintaining it row by row
 * (a trigram GIN index most of all). Used by `seed bulk`, `restore` and `copy`, on a database
 * nobody else is using. Primary keys and constraints' indexes stay (they check the rows loaded).
 */
export interface SavedIndex {
  name: string;
  definition: string;
}

/** Drops the secondary indexes of the tables named (every table when none are), answering them slowest first. */
export async function dropSecondaryIndexes<DB>(db: Kysely<DB>, tables?: readonly string[]): Promise<SavedIndex[]> {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`
    SELECT i.indexname, i.indexdef FROM pg_indexes i
    WHERE i.schemaname = current_schema() ${tables ? sql`AND i.tablename = ANY(${sql.val([...tables])}::text[])` : sql``}
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
  `.execute(db);
  for (const row of rows) await sql`DROP INDEX ${sql.ref(row.indexname)}`.execute(db);
  // Slowest first (trigram GIN builds take ten times a btree), so parallel lanes finish together.
  const saved = rows.map((row) => ({ name: row.indexname, definition: row.indexdef }));
  return saved.sort((a, b) => Number(b.definition.includes('USING gin')) - Number(a.definition.includes('USING gin')));
}

/**
 * Builds the indexes again, `lanes` at a time (each on a connection of its own, with room to sort
 * in memory). One already there is skipped, so a build interrupted part way can be run again.
 */
export async function rebuildIndexes<DB>(db: Kysely<DB>, indexes: readonly SavedIndex[], lanes = 1): Promise<void> {
  if (indexes.length === 0) return;
  const bar = progressBar('indexes [{bar}] {value}/{total} | {duration}s');
  bar.start(indexes.length, 0);
  let next = 0;
  const lane = () =>
    db.connection().execute(async (connection) => {
      await sql`SET maintenance_work_mem = '256MB'`.execute(connection).catch(() => {});
      while (next < indexes.length) {
        const saved = indexes[next++]!;
        await sql.raw(saved.definition.replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX IF NOT EXISTS ')).execute(connection);
        bar.increment();
      }
    });
  try {
    await Promise.all(Array.from({ length: lanes }, lane));
  } finally {
    bar.stop();
  }
}
