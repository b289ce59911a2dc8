import { hash } from 'node:crypto';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import type { Database } from '../../db/database.ts';
import { keyList, WHOLE } from './rows.ts';
import { quoted, type TableShape } from './tables.ts';

/**
 * A table's rows in COPY's text format, a row a line, as pg_dump and pg_restore move them: each
 * column type's own text, read and written by PostgreSQL's own code, bytes that never become
 * JavaScript strings. On a server through the COPY protocol (pg-copy-streams), a table in one
 * stream in the order the server reads it (no sort); on PGlite, whose driver speaks no COPY
 * protocol, through its `/dev/blob` in pages of the table's key. Whatever the order, a table's
 * digest is the same (RowsDigest).
 */
export interface CopySession {
  /** The table's rows (`columns`, in that order) as COPY text, in chunks that may end inside a line. */
  read(shape: TableShape, columns: readonly string[]): CopyOut;
  /** Writes whole lines of COPY text (`columns` in that order) into the table: one statement. */
  write(shape: TableShape, columns: readonly string[], lines: Buffer): Promise<void>;
  /** A statement of the session's own (a setting), whose failure is the caller's to hear. */
  run(statement: string): Promise<void>;
  close(): Promise<void>;
}

export interface CopyOut extends AsyncIterable<Buffer> {
  /**
   * Read to its end: the rows the server says it wrote (its `COPY n`), a check of the lines
   * counted; undefined where the rows came in pages (PGlite), which the caller counts otherwise.
   */
  rowCount(): number | undefined;
}

/**
 * The settings a value's text depends on, set on every session that reads or writes rows, so the
 * same row is the same line on every engine and at every read (a backup's digest and a restore's).
 */
const SETTINGS = [
  `SET TIME ZONE 'UTC'`,
  `SET DateStyle = 'ISO, MDY'`,
  `SET IntervalStyle = 'postgres'`,
  `SET bytea_output = 'hex'`,
  `SET extra_float_digits = 1`,
];

/**
 * A session of its own on a server (`DATABASE_URL`: its `options`, a search path, are pg's to
 * read), or PGlite's one session. `snapshot`, on a server: the session reads in a read-only
 * transaction on that exported snapshot (`pg_export_snapshot`, as pg_dump -j's workers do).
 */
export async function openCopySession(database: Database, url: string, snapshot?: string): Promise<CopySession> {
  const session = database.pglite ? pgliteSession(database.pglite) : await serverSession(url);
  for (const setting of SETTINGS) await session.run(setting);
  if (snapshot && !database.pglite) {
    await session.run('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await session.run(`SET TRANSACTION SNAPSHOT ${pg.escapeLiteral(snapshot)}`);
  }
  return session;
}

const columnList = (columns: readonly string[]) => columns.map(quoted).join(', ');

async function serverSession(url: string): Promise<CopySession> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  // A lost server fails the statement in flight; unheard, the client's 'error' would end the process.
  client.on('error', () => {});
  await client.connect();
  return {
    read(shape, columns) {
      const from = shape.partitioned
        ? `(SELECT ${columnList(columns)} FROM ${quoted(shape.name)})`
        : `${quoted(shape.name)} (${columnList(columns)})`;
      const stream = client.query(copyTo(`${WHOLE} COPY ${from} TO STDOUT`));
      // pg-copy-streams sets its own `rowCount` when the COPY completes.
      return {
        [Symbol.asyncIterator]: () => (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator](),
        rowCount: () => stream.rowCount,
      };
    },
    async write(shape, columns, lines) {
      const stream = client.query(copyFrom(`${WHOLE} COPY ${quoted(shape.name)} (${columnList(columns)}) FROM STDIN`));
      // 'finish' comes once the server has taken the rows (CommandComplete), an error fails it.
      stream.end(lines);
      await finished(stream);
    },
    async run(statement) {
      await client.query(statement);
    },
    close: () => client.end(),
  };
}

/** Rows a page on PGlite: each page is read whole into its memory (`/dev/blob`), then handed over. */
const PGLITE_PAGE_ROWS = 5000;

type Pglite = NonNullable<Database['pglite']>;

function pgliteSession(pglite: Pglite): CopySession {
  return {
    read: (shape, columns) => ({ [Symbol.asyncIterator]: () => pglitePages(pglite, shape, columns), rowCount: () => undefined }),
    async write(shape, columns, lines) {
      await pglite.query(`${WHOLE} COPY ${quoted(shape.name)} (${columnList(columns)}) FROM '/dev/blob'`, [], {
        blob: new Blob([lines]),
      });
    },
    async run(statement) {
      await pglite.query(statement);
    },
    // PGlite's one session is the database's, closed with it.
    close: async () => {},
  };
}

/** The table's rows a page of its key at a time: the page's last key first, then the page up to it (COPY's output names no key). */
async function* pglitePages(pglite: Pglite, shape: TableShape, columns: readonly string[]): AsyncGenerator<Buffer> {
  const keys = keyList(shape);
  const keyColumns = shape.key.map((key, i) => `${quoted(key.name)}::text AS k${i}`).join(', ');
  // Keys as the catalog read them back (text), quoted as literals: COPY's query takes no parameters.
  const literal = (values: string[]) =>
    `(${shape.key.map((key, i) => `${pg.escapeLiteral(values[i]!)}::${key.type}`).join(', ')})`;
  let after: string[] | undefined;
  for (;;) {
    const from = after ? `(${keys}) > ${literal(after)}` : 'true';
    const { rows } = await pglite.query<Record<string, string>>(
      `${WHOLE} SELECT ${keyColumns} FROM ${quoted(shape.name)} WHERE ${from} ORDER BY ${keys} OFFSET ${PGLITE_PAGE_ROWS - 1} LIMIT 1`,
    );
    const last = rows[0] ? shape.key.map((_, i) => rows[0]![`k${i}`]!) : undefined;
    const to = last ? `(${keys}) <= ${literal(last)}` : 'true';
    const page = await pglite.query(
      `${WHOLE} COPY (SELECT ${columnList(columns)} FROM ${quoted(shape.name)} WHERE ${from} AND ${to}) TO '/dev/blob'`,
    );
    if (page.blob) yield Buffer.from(await page.blob.arrayBuffer());
    if (!last) return;
    after = last;
  }
}

/** Bytes of COPY text to an archive's page: pages end with a line's end, the first to pass this size. */
export const PAGE_BYTES = 1 << 20;

/** COPY text in chunks, as whole lines of at least `size` bytes a page (the last page as long as what is left). */
export async function* linePages(chunks: AsyncIterable<Buffer>, size = PAGE_BYTES): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  for await (const chunk of chunks) {
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes < size) continue;
    const end = chunk.lastIndexOf(10);
    if (end === -1) continue;
    const page = Buffer.concat(held, heldBytes - chunk.length + end + 1);
    const rest = chunk.subarray(end + 1);
    held = rest.length > 0 ? [rest] : [];
    heldBytes = rest.length;
    yield page;
  }
  if (heldBytes > 0) yield Buffer.concat(held, heldBytes);
}

const ESCAPED: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/**
 * Each line's values of the columns at `indexes`, as text (null for `\N`): COPY's text format
 * separates values by a tab and escapes a tab, a newline or a backslash within one with a backslash.
 */
export function* valuesIn(lines: Buffer, indexes: readonly number[]): Generator<(string | null)[]> {
  const text = lines.toString('utf8');
  let start = 0;
  for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
    const fields = text.slice(start, end).split('\t');
    yield indexes.map((index) => {
      const field = fields[index] ?? '\\N';
      return field === '\\N' ? null : field.replace(/\\(.)/g, (_, char: string) => ESCAPED[char] ?? char);
    });
    start = end + 1;
  }
}

/** The lines in whole lines of COPY text (a row a line: COPY writes a newline in a value as `\n`). */
export function linesIn(lines: Buffer): number {
  let count = 0;
  for (let end = lines.indexOf(10); end !== -1; end = lines.indexOf(10, end + 1)) count += 1;
  return count;
}

/**
 * A table's rows counted, and digested whatever their order: the sum of each line's SHA-256
 * (eight 32-bit words, each added modulo 2^32). A server streams a table in its heap's order and a
 * restored table's heap has its own, so a digest of the lines in order would never compare; a
 * sum does, and still changes with any row lost, added or altered (the count is checked besides).
 */
export class RowsDigest {
  rows = 0;
  private readonly sum = new Uint32Array(8);

  /** Whole lines of COPY text, each ending with a newline. */
  add(lines: Buffer): void {
    let start = 0;
    for (let end = lines.indexOf(10, start); end !== -1; end = lines.indexOf(10, start)) {
      const line = hash('sha256', lines.subarray(start, end), 'buffer');
      for (let word = 0; word < 8; word += 1) this.sum[word]! += line.readUInt32BE(word * 4);
      this.rows += 1;
      start = end + 1;
    }
  }

  hex(): string {
    const bytes = Buffer.alloc(32);
    for (const [i, word] of this.sum.entries()) bytes.writeUInt32BE(word, i * 4);
    return bytes.toString('hex');
  }
}
