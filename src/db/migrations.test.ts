import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Kysely, NO_MIGRATIONS, PostgresDialect, type PostgresPool, sql } from 'kysely';
import pg from 'pg';
import { scratchSchema } from '../test/scratch-schema.ts';
import { type Database, openDatabase } from './database.ts';
import { migrateToLatest, withMigrator } from './migrate.ts';

/**
 * The migration chain: up to the latest, down to nothing and up again, on the database the suite
 * runs on, never the one the other test files share. PGlite: a database in memory of its own.
 * PostgreSQL or Citus (DATABASE_URL): a schema of its own, first in the search path, with
 * `public` after it for the extensions (pg_trgm, btree_gin), dropped at the end. On Citus, every
 * table ends up distributed by tenant or a reference table, as the migrations say.
 *
 * The migrations' source is read too: one statement per call, one object per DROP, and every
 * CREATE TABLE followed by how the table is distributed.
 */

const migrationFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
const migrationFiles = fs
  .readdirSync(migrationFolder)
  .filter((file) => file.endsWith('.ts'))
  .sort();
const sources = migrationFiles.map((file) => ({ file, text: fs.readFileSync(path.join(migrationFolder, file), 'utf8') }));

/** Global tables with a tenant_id all the same: /auth/token looks a client key up before it knows the tenant. */
const GLOBAL_WITH_TENANT = new Set(['api_client_keys']);

/**
 * A template's SQL cut at each top-level `;`: outside quotes ('...', "..."), comments (-- and
 * block) and dollar-quoted bodies ($$...$$, $tag$...$tag$), where a `;` ends nothing. Each piece
 * comes back without comments and trimmed; empty pieces (what follows a last `;`) are left out.
 */
function statementsOf(text: string): string[] {
  const statements: string[] = [];
  let current = '';
  let i = 0;
  /** Moves past what ends at `end` (a closing quote's index, -1 when there is none), keeping it or not. */
  const skip = (end: number, length: number, keep: boolean) => {
    assert.ok(end >= 0, `unterminated quote or comment in: ${text}`);
    if (keep) current += text.slice(i, end + length);
    i = end + length;
  };
  while (i < text.length) {
    const rest = text.slice(i);
    const dollar = /^\$[A-Za-z_]*\$/.exec(rest)?.[0];
    if (rest.startsWith('--')) skip(text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i), 0, false);
    else if (rest.startsWith('/*')) skip(text.indexOf('*/', i + 2), 2, false);
    else if (rest[0] === "'" || rest[0] === '"') skip(text.indexOf(rest[0], i + 1), 1, true);
    else if (dollar) skip(text.indexOf(dollar, i + dollar.length), dollar.length, true);
    else if (rest[0] === ';') {
      statements.push(current);
      current = '';
      i++;
    } else {
      current += rest[0];
      i++;
    }
  }
  statements.push(current);
  return statements.map((statement) => statement.replace(/\s+/g, ' ').trim()).filter((statement) => statement !== '');
}

/** Each `sql` template of a migration's source, with the source that follows it. */
function templatesOf(text: string): { sql: string; after: string }[] {
  return [...text.matchAll(/\bsql`([^`]*)`/g)].map((match) => ({
    sql: match[1] ?? '',
    after: text.slice((match.index ?? 0) + match[0].length),
  }));
}

/** The names a DROP statement lists, split at top-level commas (a function's arguments are inside parentheses). */
function droppedNames(statement: string): string[] | null {
  const drop =
    /^DROP\s+(?:MATERIALIZED VIEW|FOREIGN TABLE|[A-Z]+)\s+(?:CONCURRENTLY\s+)?(?:IF EXISTS\s+)?(.*?)(?:\s+(?:CASCADE|RESTRICT))?$/is.exec(
      statement,
    );
  if (!drop) return null;
  const names: string[] = [];
  let depth = 0;
  let name = '';
  for (const char of drop[1] ?? '') {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      names.push(name.trim());
      name = '';
    } else name += char;
  }
  return [...names, name.trim()];
}

test('the statement splitter sees through quotes, comments and function bodies', () => {
  assert.deepEqual(statementsOf("SELECT ';' -- a; comment\n; SELECT 1;"), ["SELECT ';'", 'SELECT 1']);
  assert.deepEqual(statementsOf('CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;\n'), [
    'CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$',
  ]);
  assert.deepEqual(statementsOf('CREATE INDEX a ON t (x);\n  -- why\n  CREATE INDEX b ON t (y)'), [
    'CREATE INDEX a ON t (x)',
    'CREATE INDEX b ON t (y)',
  ]);
  assert.deepEqual(droppedNames('DROP TABLE a, b'), ['a', 'b']);
  assert.deepEqual(droppedNames('DROP INDEX IF EXISTS a CASCADE'), ['a']);
  assert.deepEqual(droppedNames('DROP FUNCTION f(uuid, text)'), ['f(uuid, text)']);
});

test('each migration sends one statement per call, and each DROP names one object', () => {
  const problems: string[] = [];
  for (const { file, text } of sources) {
    // Every statement is a template the file executes: no SQL built from strings, none left unsent.
    if (/\bsql\.raw\(/.test(text)) problems.push(`${file}: sql.raw`);
    for (const template of templatesOf(text)) {
      const statements = statementsOf(template.sql);
      if (!/^\.execute\(db\)/.test(template.after)) problems.push(`${file}: a template not executed: ${statements[0]}`);
      if (statements.length > 1) problems.push(`${file}: ${statements.length} statements in one call: ${statements.join('; ')}`);
      for (const statement of statements) {
        const names = droppedNames(statement);
        if (names && names.length > 1) problems.push(`${file}: a DROP of ${names.length} objects: ${statement}`);
        // Unqualified names: the migrations make their objects in whichever schema is current.
        if (/\bpublic\./i.test(statement)) problems.push(`${file}: a name qualified with public: ${statement}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('each CREATE TABLE is followed by its distribution: by tenant with a tenant_id, else a reference table', () => {
  const problems: string[] = [];
  for (const { file, text } of sources) {
    for (const template of templatesOf(text)) {
      const table = /^CREATE TABLE (\w+)\s*\(/i.exec(statementsOf(template.sql)[0] ?? '')?.[1];
      if (!table) continue;
      const byTenant = /^\s*tenant_id\s/m.test(template.sql) && !GLOBAL_WITH_TENANT.has(table);
      const expected = `${byTenant ? 'distributeByTenant' : 'referenceTable'}(db, '${table}')`;
      if (!new RegExp(`^\\.execute\\(db\\);\\s*await ${expected.replace(/[()]/g, '\\$&')};`).test(template.after)) {
        problems.push(`${file}: CREATE TABLE ${table} is not followed by await ${expected}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

const databaseUrl = process.env.DATABASE_URL ?? '';

test('the migrations go up to the latest, down to nothing and up again', async () => {
  const scratch = databaseUrl ? await onServer(databaseUrl) : await inMemory();
  try {
    const { db } = scratch;
    assert.equal((await migrateToLatest(db)).length, migrationFiles.length);
    if (scratch.citus) await assertDistributed(db);

    const down = await withMigrator(db, (migrator) => migrator.migrateTo(NO_MIGRATIONS));
    if (down.error) throw down.error;
    assert.equal(down.results?.filter((result) => result.status === 'Success').length, migrationFiles.length);
    // Nothing is left but the migrator's own tables: every down undid its up, functions too.
    const tables = await sql<{ name: string }>`
      SELECT relname AS name FROM pg_class
      WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p', 'v', 'm', 'S') ORDER BY relname`.execute(db);
    assert.deepEqual(
      tables.rows.map((row) => row.name),
      ['cairn_migrations', 'cairn_migrations_lock'],
    );
    // (PGlite's schema is public, which holds the extensions' functions.)
    const functions = await sql<{ name: string }>`
      SELECT proname AS name FROM pg_proc p
      WHERE pronamespace = current_schema()::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`.execute(
      db,
    );
    assert.deepEqual(functions.rows, []);

    assert.equal((await migrateToLatest(db)).length, migrationFiles.length);
    if (scratch.citus) await assertDistributed(db);
  } finally {
    await scratch.close();
  }
});

interface Scratch {
  db: Kysely<unknown>;
  citus: boolean;
  close(): Promise<void>;
}

async function inMemory(): Promise<Scratch> {
  const database: Database = await openDatabase({ databaseUrl: '', dataDir: 'memory://', poolSize: 1 });
  return { db: database.db as Kysely<unknown>, citus: false, close: () => database.close() };
}

/**
 * The migrations in a schema of their own on the server (test/scratch-schema.ts: on Citus 4 shards
 * a table, since what is checked is how each table is distributed, and the chain runs four times
 * faster). Every query goes by the extended protocol, which refuses a string of several
 * statements, as Citus's workers do.
 */
async function onServer(url: string): Promise<Scratch> {
  const scratch = await scratchSchema(url, 'cairn_migrations');
  const pool = new pg.Pool({ connectionString: scratch.url, max: 1 });
  pool.on('error', () => {});
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: extendedProtocol(pool) }) });
  return {
    db,
    citus: scratch.citus,
    async close() {
      await db.destroy();
      await scratch.drop();
    },
  };
}

/** The pool as Kysely sees it, every query sent by the extended protocol: one statement each, or the server refuses it. */
function extendedProtocol(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: ((text: string, values: unknown[]) =>
          client.query({ text, values, queryMode: 'extended' } as pg.QueryConfig)) as never,
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

/**
 * Every table of the schema is in pg_dist_partition: one with a tenant_id hashed by it, all of
 * them in one colocation group; the others (and api_client_keys) reference tables, the
 * migrator's own included.
 */
async function assertDistributed(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{
    name: string;
    tenant: boolean;
    method: string | null;
    replication: string | null;
    column: string | null;
    colocation: number | null;
  }>`
    SELECT c.relname AS name,
      EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped) AS tenant,
      p.partmethod AS method, p.repmodel AS replication, p.colocationid AS colocation,
      CASE WHEN p.partkey IS NOT NULL THEN column_to_column_name(p.logicalrelid, p.partkey) END AS column
    FROM pg_class c LEFT JOIN pg_dist_partition p ON p.logicalrelid = c.oid
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p')
    ORDER BY c.relname`.execute(db);
  const byTenant = rows.filter((row) => row.tenant && !GLOBAL_WITH_TENANT.has(row.name));
  const global = rows.filter((row) => !byTenant.includes(row));
  assert.deepEqual(
    byTenant.filter((row) => row.method !== 'h' || row.column !== 'tenant_id').map((row) => `${row.name}: ${row.method}`),
    [],
    'tables with a tenant_id are distributed by hash on it',
  );
  assert.equal(new Set(byTenant.map((row) => row.colocation)).size, 1, 'the tenant tables are co-located');
  // partmethod 'n' with repmodel 't' is a reference table; 'n' with 's' would be a Citus local table.
  assert.deepEqual(
    global.filter((row) => row.method !== 'n' || row.replication !== 't').map((row) => `${row.name}: ${row.method}`),
    [],
    'the global tables are reference tables',
  );
  assert.deepEqual(
    global.map((row) => row.name),
    ['api_client_keys', 'blob_holds', 'cairn_migrations', 'cairn_migrations_lock', 'server_settings', 'tenants'],
  );
  assert.ok(byTenant.length > 40, `${byTenant.length} tenant tables`);
}
