/**
 * `npm run bench:operating [-- --quick]` (and the end of `npm run bench`): what backup, restore and
 * copy sustain at scale, each against the bare tool that does the nearest thing, in the same run.
 *
 * On a PostgreSQL of its own (tuned as run.ts's), a tenant of 1,000,000 patients (100,000 with
 * --quick) with as many tasks and calendar events, made by `cairn seed bulk`; then
 * 1. `cairn backup` of that installation (a gzipped archive, every table's rows as JSON and each
 *    table's SHA-256) against `pg_dump -Fc -Z1` of the same database;
 * 2. `cairn restore` of the archive into a new embedded installation (a PGlite directory), the way
 *    a laptop starts from a server's backup, with its check against the manifest;
 * 3. `cairn copy` of that embedded installation into a new PostgreSQL database (killed by nothing:
 *    one run), its verification included (every table read again on both sides), against
 *    `pg_restore` of the dump into another new database.
 * Rows per second count every row of every table the archive holds.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Cluster, postgresBinDir, startCluster } from '../src/test/postgres-cluster.ts';
import { cli, log, query, quick, root, standalone, tunedPostgres } from './common.ts';

const PATIENTS = quick ? 100_000 : 1_000_000;

interface Timed {
  seconds: number;
  output: string;
}

/** `cairn <args>` from the build, timed, its output kept (its summary line). */
function timedCli(args: string[], env: NodeJS.ProcessEnv): Timed {
  const started = performance.now();
  const output = execFileSync(process.execPath, ['dist/cli.js', ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { seconds: (performance.now() - started) / 1000, output };
}

function timedTool(bin: string, args: string[]): Timed {
  const started = performance.now();
  const output = execFileSync(path.join(postgresBinDir()!, bin), args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { seconds: (performance.now() - started) / 1000, output };
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const rate = (rows: number, seconds: number) => Math.round(rows / seconds).toLocaleString('en-US');

export async function benchOperating(): Promise<string> {
  log(`== Operating: backup, restore and copy of ${PATIENTS.toLocaleString('en-US')} patients`);
  const cluster: Cluster = await startCluster(tunedPostgres());
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-operating-'));
  try {
    const url = cluster.url('postgres');
    const server = {
      ...process.env,
      DATABASE_URL: url,
      CAIRN_DEMO: 'false',
      LOG_LEVEL: 'warn',
      CAIRN_DATA_DIR: path.join(work, 'server'),
    };
    const seeded = performance.now();
    cli(['migrate'], server);
    cli(
      [
        'seed',
        'bulk',
        '--tenant',
        'operating',
        '--patients',
        String(PATIENTS),
        '--tasks',
        String(PATIENTS),
        '--events',
        String(PATIENTS),
      ],
      server,
    );
    await query(url, 'VACUUM ANALYZE');
    log(`seeded in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);

    const archive = path.join(work, 'cairn.tar.gz');
    log('backup…');
    const backup = timedCli(['backup', archive], server);
    const rows = Number(/\((\d+) rows\)/.exec(backup.output)?.[1]);
    const dumpFile = path.join(work, 'pg.dump');
    log('pg_dump…');
    const dump = timedTool('pg_dump', ['-Fc', '-Z1', '-f', dumpFile, url]);

    log('restore into PGlite…');
    const embedded = {
      ...process.env,
      DATABASE_URL: '',
      CAIRN_DEMO: 'false',
      LOG_LEVEL: 'warn',
      CAIRN_DATA_DIR: path.join(work, 'embedded'),
    };
    const restore = timedCli(['restore', archive], embedded);

    log('copy to PostgreSQL…');
    await query(url, 'CREATE DATABASE copied');
    const copy = timedCli(['copy', '--to', cluster.url('copied')], embedded);
    log('pg_restore…');
    await query(url, 'CREATE DATABASE restored');
    const pgRestore = timedTool('pg_restore', ['-d', cluster.url('restored'), dumpFile]);

    const archiveBytes = fs.statSync(archive).size;
    const dumpBytes = fs.statSync(dumpFile).size;
    const line = (what: string, cairn: Timed, bare: Timed | undefined, bareName: string) =>
      `| ${what} | ${cairn.seconds.toFixed(0)} s | ${rate(rows, cairn.seconds)} | ${bare ? `${bareName}: ${bare.seconds.toFixed(0)} s (${rate(rows, bare.seconds)} rows/s) | ${(bare.seconds / cairn.seconds).toFixed(2)}` : `${bareName} | –`} |`;
    return [
      `\n## Operating: backup, restore and copy (${PATIENTS.toLocaleString('en-US')} patients, ${rows.toLocaleString('en-US')} rows)\n`,
      'Each command from the build, one run each; rows per second over every row of every table. The bare tool does the nearest thing on the same database in the same run: it neither verifies nor reads the file store, and its formats serve one engine only.\n',
      '| command | time | rows/s | bare tool | bare ÷ Cairn (time) |',
      '|---|---|---|---|---|',
      line('`cairn backup` (PostgreSQL → archive)', backup, dump, '`pg_dump -Fc -Z1`'),
      line('`cairn restore` (archive → new PGlite)', restore, undefined, 'none for PGlite'),
      line('`cairn copy` (PGlite → PostgreSQL, verified)', copy, pgRestore, '`pg_restore`'),
      '',
      `Archive ${mb(archiveBytes)} MB (gzip level 1); pg_dump's ${mb(dumpBytes)} MB.`,
      '',
    ].join('\n');
  } finally {
    cluster.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

standalone(import.meta.url, 'operating', () => benchOperating());
