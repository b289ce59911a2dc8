import { createHash, type Hash } from 'node:crypto';
import os from 'node:os';
import { type Kysely, sql } from 'kysely';
import { crossTenant } from '../../db/cross-tenant.ts';
import { quoted, type TableShape } from './tables.ts';

/**
 * A table's rows in pages of its primary key, each page one text: the rows' record texts
 * (`t::text`), a line each, joined by the database (`string_agg`) and split and parsed by it again
 * when written (`string_to_array`, `::t`): how a copy moves rows (it resumes after its greatest
 * key), and how format 2's backups held them (a backup now moves COPY text, copy-text.ts). Record
 * text is each type's own output, as COPY's is,
 * which PGlite, PostgreSQL and Citus all read and write whatever the column types (bytea, arrays,
 * jsonb), so a copy is never tied to one engine; it costs the database a fraction of
 * `row_to_json` (a fifth, measured: 23 ms against 127 for 5,000 patients), and the client decodes
 * one value a page instead of an object a row. A record's text holds a quoted value's newlines as
 * they are, so a line escapes them: `\` becomes `\b`, then a newline `\n`; undone in the other
 * order. The order of the key is byte order (`COLLATE "C"` on text keys), the same on every
 * engine, so two databases' digests of a table (over the same pages) compare.
 */

/** Rows per page: a page read is one statement, a page written one statement, and the unit a digest hashes. */
export const PAGE_ROWS = 5000;

/** What every session reading rows sets first: the times in row_to_json's text are then UTC on every engine. */
export async function readingSession<DB>(db: Kysely<DB>): Promise<void> {
  await sql`SET TIME ZONE 'UTC'`.execute(db);
}

/**
 * How many connections restore and copy spread their work over on a server (one on PGlite, which
 * is one session): a statement runs on one core, so as many as the machine has, up to 4.
 */
export const LANES = Math.max(1, Math.min(os.availableParallelism(), 4));

/** `count` connections of the pool held at once, each a reading session, for work spread over them. */
export async function readingSessions<DB, T>(
  db: Kysely<DB>,
  count: number,
  use: (sessions: Kysely<DB>[]) => Promise<T>,
): Promise<T> {
  const held: Kysely<DB>[] = [];
  const hold = (): Promise<T> =>
    held.length === count
      ? use(held)
      : db.connection().execute(async (session) => {
          await readingSession(session);
          held.push(session);
          return hold();
        });
  return hold();
}

/**
 * Rows loaded into a new database are as consistent as the snapshot they were read from, and each
 * table is checked against its source's digest afterwards: foreign-key triggers are skipped while
 * they load, as pg_restore skips them by adding the keys after the data, where the loader may (a
 * superuser, as `seed bulk` does); elsewhere the keys are checked row by row, as before.
 */
export async function skippingTriggers<DB>(session: Kysely<DB>, skip: boolean): Promise<void> {
  await sql
    .raw(skipTriggers(skip))
    .execute(session)
    .catch(() => {});
}

/** The statement that skips a session's triggers or brings them back (restore's COPY sessions run it too). */
export const skipTriggers = (skip: boolean) => `SET session_replication_role = ${skip ? 'replica' : 'DEFAULT'}`;

/** Every statement here reads or writes all the tenants' rows of a table: marked so (db/cross-tenant.ts). */
export const WHOLE = crossTenant('installation-copy');

const isText = (type: string) => type === 'text' || type.startsWith('character');

/** The table's key as an ORDER BY or a row comparison takes it: text in byte order, the same on every engine. */
export function keyList(shape: TableShape): string {
  return shape.key.map((key) => `${quoted(key.name)}${isText(key.type) ? ' COLLATE "C"' : ''}`).join(', ');
}

export interface RowPage {
  /** The page's rows in key order, a line of escaped record text each (no newline after the last). */
  text: string;
  count: number;
  /** The page's last key, as text: the next page starts after it. */
  last: string[];
}

/**
 * The table's rows, `rowsPerPage` at a time, after `after` (a key as text) or from the start.
 * The next page is asked for before this one is handed on, so the database reads it while the
 * caller writes this one.
 */
export async function* readRows<DB>(
  db: Kysely<DB>,
  shape: TableShape,
  after?: string[],
  rowsPerPage = PAGE_ROWS,
): AsyncGenerator<RowPage> {
  const keys = keyList(shape);
  // The page's columns c0, c1… are the key's. The aggregates take the rows as the page's ORDER BY
  // gives them (a sort of their own would cost more than the rest); the last key is then the last
  // row's, and a backup checks each table's rows against its count (backup.ts).
  const keyColumns = shape.key.map((key, i) => `${quoted(key.name)} AS c${i}`).join(', ');
  const lastKey = shape.key.map((_, i) => `(array_agg(c${i}::text))[count(*)::int] AS k${i}`).join(', ');
  const read = async (from: string[] | undefined): Promise<RowPage | undefined> => {
    const where = from
      ? sql`WHERE (${sql.raw(keys)}) > (${sql.join(
          shape.key.map((key, i) => sql`${from[i]}::${sql.raw(key.type)}${sql.raw(isText(key.type) ? ' COLLATE "C"' : '')}`),
        )})`
      : sql``;
    const { rows } = await sql<Record<string, string | number>>`${sql.raw(WHOLE)}
      SELECT string_agg(replace(replace(page.t::text, '\\', '\\b'), E'\\n', '\\n'), E'\\n') AS text,
             count(*)::int AS count, ${sql.raw(lastKey)}
        FROM (SELECT t, ${sql.raw(keyColumns)} FROM ${sql.raw(quoted(shape.name))} t ${where}
               ORDER BY ${sql.raw(keys)} LIMIT ${rowsPerPage}) page`.execute(db);
    const page = rows[0]!;
    const count = page.count as number;
    if (count === 0) return undefined;
    return { text: page.text as string, count, last: shape.key.map((_, i) => page[`k${i}`] as string) };
  };
  let next = read(after);
  for (;;) {
    const page = await next;
    if (!page) return;
    next = page.count < rowsPerPage ? Promise.resolve(undefined) : read(page.last);
    // Settled by the next turn of the loop; a caller that stops early leaves it unheard, not unhandled.
    next.catch(() => {});
    yield page;
  }
}

/** The table's rows, counted. */
export async function countOf<DB>(db: Kysely<DB>, shape: TableShape): Promise<number> {
  const { rows } = await sql<{
    count: number;
  }>`${sql.raw(WHOLE)} SELECT count(*)::int AS count FROM ${sql.raw(quoted(shape.name))}`.execute(db);
  return rows[0]!.count;
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

/** Writes a page read by readRows. */
export async function writeRows<DB>(db: Kysely<DB>, shape: TableShape, text: string): Promise<void> {
  const columns = shape.columns.map(quoted).join(', ');
  const table = quoted(shape.name);
  await sql`${sql.raw(WHOLE)}
    INSERT INTO ${sql.raw(table)} (${sql.raw(columns)}) OVERRIDING SYSTEM VALUE
    SELECT ${sql.raw(columns)} FROM unnest(ARRAY(
      SELECT replace(replace(line, '\\n', E'\\n'), '\\b', '\\')::${sql.raw(table)} FROM unnest(string_to_array(${text}, E'\\n')) line))`.execute(
    db,
  );
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

/**
 * The rows' count and a SHA-256 of their pages' texts in key order: two databases holding the same
 * rows agree on both, read in pages of the same size (the manifest says which).
 */
export class TableDigest {
  rows = 0;
  pages = 0;
  private readonly hash: Hash = createHash('sha256');

  /** A page's text (or its UTF-8 bytes) and how many rows it holds. */
  add(text: string | Buffer, count: number): void {
    this.hash.update(text);
    this.rows += count;
    this.pages += 1;
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}

/** A table's digest, read through in pages. */
export async function digestOf<DB>(db: Kysely<DB>, shape: TableShape, rowsPerPage = PAGE_ROWS) {
  const digest = new TableDigest();
  for await (const page of readRows(db, shape, undefined, rowsPerPage)) digest.add(page.text, page.count);
  return { rows: digest.rows, sha256: digest.hex() };
}
