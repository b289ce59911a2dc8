import { createHash } from 'node:crypto';
import readline from 'node:readline';
import { type Kysely, sql } from 'kysely';
import type { ArchiveEntry } from './archive.ts';
import { WHOLE } from './rows.ts';
import { quoted, type TableShape } from './tables.ts';

/**
 * Backups of format 1, which restore still reads: a table is one entry `tables/<name>.ndjson`,
 * a row's `row_to_json` text a line, its digest the SHA-256 of those lines (each ended by a
 * newline) in key order, read in pages and written back with `json_populate_recordset`.
 */

const PAGE_ROWS = 5000;
/** A statement written is also cut at this many bytes of JSON, so a table of large rows sends no huge parameter. */
const PAGE_BYTES = 8 * 1024 * 1024;

const isText = (type: string) => type === 'text' || type.startsWith('character');

/** Loads a table's entry, its lines in statements of at most PAGE_ROWS rows and about PAGE_BYTES. */
export async function loadJsonLines<DB>(db: Kysely<DB>, shape: TableShape, entry: ArchiveEntry): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  for await (const line of readline.createInterface({ input: entry.stream, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line === '') continue;
    if (batch.length === PAGE_ROWS || (batch.length > 0 && bytes + line.length > PAGE_BYTES)) {
      await writeJsonRows(db, shape, batch);
      batch = [];
      bytes = 0;
    }
    batch.push(line);
    bytes += line.length;
  }
  if (batch.length > 0) await writeJsonRows(db, shape, batch);
}

async function writeJsonRows<DB>(db: Kysely<DB>, shape: TableShape, rows: readonly string[]): Promise<void> {
  const columns = shape.columns.map(quoted).join(', ');
  const table = quoted(shape.name);
  await sql`${sql.raw(WHOLE)}
    INSERT INTO ${sql.raw(table)} (${sql.raw(columns)}) OVERRIDING SYSTEM VALUE
    SELECT ${sql.raw(columns)} FROM json_populate_recordset(NULL::${sql.raw(table)}, ${`[${rows.join(',')}]`}::json)`.execute(db);
}

/** A table's format-1 digest, read through in pages of its key. */
export async function jsonDigestOf<DB>(db: Kysely<DB>, shape: TableShape): Promise<{ rows: number; sha256: string }> {
  const keys = shape.key.map((key) => `${quoted(key.name)}${isText(key.type) ? ' COLLATE "C"' : ''}`).join(', ');
  const keyColumns = shape.key.map((key, i) => `${quoted(key.name)}::text AS k${i}`).join(', ');
  const hash = createHash('sha256');
  let count = 0;
  let last: string[] | undefined;
  for (;;) {
    const after = last;
    const from = after
      ? sql`WHERE (${sql.raw(keys)}) > (${sql.join(
          shape.key.map((key, i) => sql`${after[i]}::${sql.raw(key.type)}${sql.raw(isText(key.type) ? ' COLLATE "C"' : '')}`),
        )})`
      : sql``;
    const { rows } = await sql<Record<string, string>>`${sql.raw(WHOLE)}
      SELECT row_to_json(t)::text AS row, ${sql.raw(keyColumns)}
        FROM ${sql.raw(quoted(shape.name))} t ${from}
       ORDER BY ${sql.raw(keys)} LIMIT ${PAGE_ROWS}`.execute(db);
    for (const row of rows) hash.update(row.row!).update('\n');
    count += rows.length;
    if (rows.length < PAGE_ROWS) return { rows: count, sha256: hash.digest('hex') };
    const end = rows[rows.length - 1]!;
    last = shape.key.map((_, i) => end[`k${i}`]!);
  }
}
