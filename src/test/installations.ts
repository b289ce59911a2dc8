import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { openDatabase } from '../db/database.ts';
import { testDataDir } from './data-dirs.ts';

/**
 * Whole installations for the operating commands' tests (backup, restore, copy): a data
 * directory (its files, and its database on the embedded engine), plus, when the suite runs on a
 * server (DATABASE_URL), a schema of its own there, named in the URL's `options`, so a restore or
 * a copy has an empty database to fill beside the other test files' data.
 */
export interface Installation {
  dataDir: string;
  /** DATABASE_URL for its processes: '' on the embedded engine. */
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  remove(): Promise<void>;
}

/** A new installation on the suite's engine; `empty` skips the embedded template (a restore's target). */
export async function newInstallation({ empty = false } = {}): Promise<Installation> {
  const dataDir = empty
    ? fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'cairn-target-'))
    : await testDataDir('cairn-install-');
  const server = process.env.DATABASE_URL;
  const schema = server ? await newSchema(server) : undefined;
  const databaseUrl = server && schema ? schemaUrl(server, schema) : '';
  return {
    dataDir,
    databaseUrl,
    env: { ...process.env, CAIRN_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    async remove() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (server && schema) await dropSchema(server, schema);
    },
  };
}

/** A schema of its own on the server; `public` after it holds the extensions (made there first, as the migrations test does). */
export async function newSchema(url: string): Promise<string> {
  const admin = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 1 });
  const schema = `cairn_install_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`.execute(admin.db);
    await sql`CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public`.execute(admin.db);
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(admin.db);
  } finally {
    await admin.close();
  }
  return schema;
}

/** The server's URL with the schema first in the search path (4 shards a table on Citus: what is tested is the copy, not the spread). */
export function schemaUrl(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', `-c search_path=${schema},public -c citus.shard_count=4`);
  return parsed.toString();
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const admin = await openDatabase({ databaseUrl: url, dataDir: '', poolSize: 1 });
  try {
    await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(admin.db);
  } finally {
    await admin.close();
  }
}

/** Runs `cairn <args>` as an operator would; answers its output, or throws it with the exit code. */
export async function cairn(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  return `${stdout}${stderr}`;
}
