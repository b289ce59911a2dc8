import { createHash, type Hash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { crossTenant } from '../../db/cross-tenant.ts';
import { quoted, type TableShape } from './tables.ts';

/**
 * A table's rows as JSON text (`row_to_json`), read in pages of its primary key and written back
 * with `json_populate_recordset`: one format that PGlite, PostgreSQL and Citus all read and write,
 * whatever the column types (bytea, arrays, jsonb), so a backup or a copy is never tied to one
 * engine. The order of the key is byte order (`COLLATE "C"` on text keys), the same on every
 * engine, so two databases' digests of a table compare.
 */

/** Rows per page read, and the most written by one statement. */
const PAGE_ROWS = 5000;
/** A page written is also cut at this many bytes of JSON, so a table of large rows sends no huge parameter. */
const PAGE_BYTES = 8 * 1024 * 1024;

/** What every session reading rows sets first: the times in row_to_json's text are then UTC on every engine. */
export async function readingSession<DB>(db: Kysely<DB>): Promise<void> {
  await sql`SET TIME ZONE 'UTC'`.execute(db);
}

/** Every statement here reads or writes all the tenants' rows of a table: marked so (db/cross-tenant.ts). */
export const WHOLE = crossTenant('installation-copy');

const isText = (type: string) => type === 'text' || type.startsWith('character');

function keyList(shape: TableShape): string {
  return shape.key.map((key) => `${quoted(key.name)}${isText(key.type) ? ' COLLATE "C"' : ''}`).join(', ');
}

export interface RowPage {
  rows: string[];
  /** The page's last key, as text: the next page starts after it. */
  last: string[];
}

/** The table's rows, a page at a time, after `after` (a key as text) or from the start. */
export async function* readRows<DB>(db: Kysely<DB>, shape: TableShape, after?: string[]): AsyncGenerator<RowPage> {
  const keys = keyList(shape);
  const keyColumns = shape.key.map((key, i) => `${quoted(key.name)}::text AS k${i}`).join(', ');
  let last = after;
  for (;;) {
    const from = last
      ? sql`WHERE (${sql.raw(keys)}) > (${sql.join(
          shape.key.map((key, i) => sql`${last![i]}::${sql.raw(key.type)}${sql.raw(isText(key.type) ? ' COLLATE "C"' : '')}`),
        )})`
      : sql``;
    const { rows } = await sql<Record<string, string>>`${sql.raw(WHOLE)}
      SELECT row_to_json(t)::text AS row, ${sql.raw(keyColumns)}
        FROM ${sql.raw(quoted(shape.name))} t ${from}
       ORDER BY ${sql.raw(keys)} LIMIT ${PAGE_ROWS}`.execute(db);
    if (rows.length === 0) return;
    const end = rows[rows.length - 1]!;
    last = shape.key.map((_, i) => end[`k${i}`]!);
    yield { rows: rows.map((row) => row.row!), last };
    if (rows.length < PAGE_ROWS) return;
  }
}

/** The greatest key the table holds, as text (where an interrupted copy goes on from), or undefined when empty. */
export async function lastKey<DB>(db: Kysely<DB>, shape: TableShape): Promise<string[] | undefined> {
  const descending = keyList(shape)
    .split(', ')
    .map((key) => `${key} DESC`)
    .join(', ');
  const keyColumns = shape.key.map((key, i) => `${quoted(key.name)}::text AS k${i}`).join(', ');
  const { rows } = await sql<Record<string, string>>`${sql.raw(WHOLE)}
    SELECT ${sql.raw(keyColumns)} FROM ${sql.raw(quoted(shape.name))} ORDER BY ${sql.raw(descending)} LIMIT 1`.execute(db);
  const row = rows[0];
  return row ? shape.key.map((_, i) => row[`k${i}`]!) : undefined;
}

/** Writes rows read by readRows, in statements of at most PAGE_ROWS rows and about PAGE_BYTES. */
export async function writeRows<DB>(db: Kysely<DB>, shape: TableShape, rows: readonly string[]): Promise<void> {
  let start = 0;
  while (start < rows.length) {
    let end = start;
    let bytes = 0;
    while (end < rows.length && end - start < PAGE_ROWS && (end === start || bytes + rows[end]!.length <= PAGE_BYTES)) {
      bytes += rows[end]!.length;
      end += 1;
    }
    const columns = shape.columns.map(quoted).join(', ');
    const table = quoted(shape.name);
    await sql`${sql.raw(WHOLE)}
      INSERT INTO ${sql.raw(table)} (${sql.raw(columns)}) OVERRIDING SYSTEM VALUE
      SELECT ${sql.raw(columns)} FROM json_populate_recordset(NULL::${sql.raw(table)}, ${`[${rows.slice(start, end).join(',')}]`}::json)`.execute(
      db,
    );
    start = end;
  }
}

/**
 * Where the installation's identity sequences are (`events.seq`, `jobs.seq`): the last value each
 * gave, by `table.column`, 0 for one that gave none. A sequence runs ahead of the rows: the outbox
 * relayed is empty, yet a subscription's `after_seq` remembers where it stood, so a copy or a
 * restore must go on from here, not from the greatest value left in the rows.
 */
export async function identityPositions<DB>(db: Kysely<DB>, shapes: readonly TableShape[]): Promise<Record<string, number>> {
  const positions: Record<string, number> = {};
  for (const shape of shapes) {
    for (const column of shape.identity) {
      positions[`${shape.name}.${column}`] = await sequencePosition(db, shape.name, column);
    }
  }
  return positions;
}

/** The last value a column's sequence gave (its next, less one, after a setval that gave none: a copy not yet served). */
export async function sequencePosition<DB>(db: Kysely<DB>, table: string, column: string): Promise<number> {
  const { rows: named } = await sql<{ sequence: string }>`
    SELECT pg_get_serial_sequence(${quoted(table)}, ${column}) AS sequence`.execute(db);
  // The sequence's name as the catalog quotes it, never input.
  const { rows } = await sql<{ last_value: string | number; is_called: boolean }>`
    SELECT last_value, is_called FROM ${sql.raw(named[0]!.sequence)}`.execute(db);
  const { last_value, is_called } = rows[0]!;
  return Number(last_value) - (is_called ? 0 : 1);
}

/**
 * Moves the table's identity sequences past the values written and past where the source's stood
 * (`positions`, from identityPositions), so the next row numbers on from both.
 */
export async function advanceIdentities<DB>(
  db: Kysely<DB>,
  shape: TableShape,
  positions: Readonly<Record<string, number>> = {},
): Promise<void> {
  for (const column of shape.identity) {
    const table = quoted(shape.name);
    const source = positions[`${shape.name}.${column}`] ?? 0;
    await sql`
      SELECT setval(pg_get_serial_sequence(${table}, ${column}),
                    greatest((SELECT coalesce(max(${sql.raw(quoted(column))}), 0) FROM ${sql.raw(table)}), ${source}::bigint) + 1,
                    false)`.execute(db);
  }
}

/** The rows' count and a SHA-256 of their text in key order: two databases holding the same rows agree on both. */
export class TableDigest {
  rows = 0;
  private readonly hash: Hash = createHash('sha256');

  add(rows: readonly string[]): void {
    for (const row of rows) this.hash.update(row).update('\n');
    this.rows += rows.length;
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}

/** A table's digest, read through in pages. */
export async function digestOf<DB>(db: Kysely<DB>, shape: TableShape): Promise<{ rows: number; sha256: string }> {
  const digest = new TableDigest();
  for await (const page of readRows(db, shape)) digest.add(page.rows);
  return { rows: digest.rows, sha256: digest.hex() };
}
