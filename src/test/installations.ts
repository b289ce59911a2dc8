import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { promisify } from 'node:util';
import { buildApp } from '../app.ts';
import { areas } from '../areas.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { settingsSections } from '../platform/area.ts';
import type { TestClock } from './clock.ts';
import { testDataDir } from './data-dirs.ts';
import type { TestApp } from './harness.ts';
import { scratchSchema } from './scratch-schema.ts';

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
  const scratch = server ? await scratchSchema(server, 'cairn_install') : undefined;
  const databaseUrl = scratch?.url ?? '';
  return {
    dataDir,
    databaseUrl,
    env: { ...process.env, CAIRN_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    async remove() {
      fs.rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
  };
}

/** Runs `cairn <args>` as an operator would; answers its output, or throws it with the exit code. */
export async function cairn(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env,
    maxBuffer: 16 * 1024 * 1024,
  });
  return `${stdout}${stderr}`;
}

/** Lets the installations' webhooks post to the tests' loopback receivers, and give up on one quickly. */
export const LOOPBACK_WEBHOOKS = { CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true', CAIRN_WEBHOOKS_TIMEOUT_MS: '2000' };

/**
 * An app on an installation of its own (its DATABASE_URL and CAIRN_DATA_DIR in `env`, not the
 * suite's shared database), closed when the file ends. Its `jobs.drain()` runs all its work: every
 * tenant in it is the test's.
 */
export async function openApp(env: Record<string, string>, clock?: TestClock): Promise<TestApp & { close(): Promise<void> }> {
  const config = loadConfig({ CAIRN_DEMO: 'false', LOG_LEVEL: 'silent', ...LOOPBACK_WEBHOOKS, ...env }, settingsSections(areas));
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  await migrateToLatest(database.db);
  const { server, services, accessTable, catalogs, schemas } = await buildApp({ config, database, ...(clock ? { clock } : {}) });
  await server.ready();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
    await database.close();
  };
  after(close);
  return Object.assign(
    { server, services, config, accessTable, catalogs, schemas, jobs: { drain: () => services.jobs.drain() } },
    { close },
  );
}

interface S3rver {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
const S3rverServer = createRequire(import.meta.url)('s3rver') as new (options: Record<string, unknown>) => S3rver;

/** An S3 server (s3rver) on a loopback port with one bucket, its folder removed when the file ends. */
export async function startS3(bucket: string) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-s3-'));
  const s3 = new S3rverServer({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    resetOnClose: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await s3.run();
  after(async () => {
    await s3.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { CAIRN_S3_ACCESS_KEY_ID: 'S3RVER', CAIRN_S3_SECRET_ACCESS_KEY: 'S3RVER' };
  return {
    /** `cairn copy --files-to`'s value for the bucket. */
    url: `s3://${bucket}?endpoint=${endpoint}&forcePathStyle=true`,
    /** The credentials, for the copy's command as for the servers. */
    credentials,
    /** A server's settings for a file store in the bucket. */
    env: {
      CAIRN_FILE_STORE: 's3',
      CAIRN_S3_BUCKET: bucket,
      CAIRN_S3_ENDPOINT: endpoint,
      CAIRN_S3_FORCE_PATH_STYLE: 'true',
      ...credentials,
    },
  };
}
