/**
 * `npm run bench:operating [-- --quick]` (and the end of `npm run bench`): what backup, restore and
 * copy sustain at scale, each against the bare PostgreSQL tool that does the nearest thing, in the
 * same run.
 *
 * 1. On a PostgreSQL of its own (tuned as run.ts's), a tenant of 1,000,000 patients (100,000 with
 *    --quick) with as many tasks and calendar events (`cairn seed bulk`), then:
 *    `cairn backup` (a gzipped archive of every table's rows as COPY text, with each table's SHA-256)
 *    against `pg_dump -Fc -Z1`; `cairn restore` of it into a new database, its check against the
 *    manifest included, against `pg_restore` of the dump; and `cairn copy` into another new
 *    database, its verification included (every table read again on both sides), against
 *    `pg_dump | pg_restore` (the two times added).
 * 2. The move the command exists for, from the embedded database: a PGlite installation of 100,000
 *    patients (20,000 with --quick; made with the same seed, which at 1,000,000 would itself take
 *    about half an hour in PGlite's one WebAssembly process), `cairn backup` of it and `cairn copy`
 *    of it to PostgreSQL.
 * Rows per second count every row of every table the archive holds; each command's own `Time:`
 * line (where its time went, phase by phase) is reported beside it.
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

const EMBEDDED_PATIENTS = quick ? 20_000 : 100_000;

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
    seed(PATIENTS, server);
    await query(url, 'VACUUM ANALYZE');
    log(`seeded in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);

    const archive = path.join(work, 'cairn.tar.gz');
    log('backup…');
    const backup = timedCli(['backup', archive], server);
    const rows = rowsOf(backup);
    const dumpFile = path.join(work, 'pg.dump');
    log('pg_dump…');
    const dump = timedTool('pg_dump', ['-Fc', '-Z1', '-f', dumpFile, url]);
    log('restore…');
    await query(url, 'CREATE DATABASE restored');
    const restore = timedCli(['restore', archive], { ...server, DATABASE_URL: cluster.url('restored') });
    log('pg_restore…');
    await query(url, 'CREATE DATABASE pg_restored');
    const pgRestore = timedTool('pg_restore', ['-d', cluster.url('pg_restored'), dumpFile]);
    log('copy…');
    await query(url, 'CREATE DATABASE copied');
    const copy = timedCli(['copy', '--to', cluster.url('copied')], server);
    const dumpAndRestore = { seconds: dump.seconds + pgRestore.seconds, output: '' };

    log(`== Operating: an embedded installation of ${EMBEDDED_PATIENTS.toLocaleString('en-US')} patients`);
    const embedded = {
      ...process.env,
      DATABASE_URL: '',
      CAIRN_DEMO: 'false',
      LOG_LEVEL: 'warn',
      CAIRN_DATA_DIR: path.join(work, 'embedded'),
    };
    seed(EMBEDDED_PATIENTS, embedded);
    log('backup…');
    const embeddedBackup = timedCli(['backup', path.join(work, 'embedded.tar.gz')], embedded);
    const embeddedRows = rowsOf(embeddedBackup);
    log('copy…');
    await query(url, 'CREATE DATABASE moved');
    const move = timedCli(['copy', '--to', cluster.url('moved')], embedded);

    const line = (what: string, count: number, cairn: Timed, bare?: { name: string; timed: Timed }) =>
      `| ${what} | ${count.toLocaleString('en-US')} | ${seconds(cairn.seconds)} | ${rate(count, cairn.seconds)} | ${
        bare ? `${bare.name}: ${seconds(bare.timed.seconds)} | ${(bare.timed.seconds / cairn.seconds).toFixed(2)}` : '– | –'
      } | ${phasesOf(cairn)} |`;
    return [
      `\n## Operating: backup, restore and copy (${PATIENTS.toLocaleString('en-US')} patients)\n`,
      'Each command from the build, one run each; rows per second over every row of every table. The bare tool does the nearest thing on the same database in the same run; it neither verifies nor carries the file store, and its format serves PostgreSQL only.\n',
      "| command | rows | time | rows/s | bare tool | bare ÷ Cairn (time) | where Cairn's time went |",
      '|---|---|---|---|---|---|---|',
      line('`cairn backup` (PostgreSQL → archive)', rows, backup, { name: '`pg_dump -Fc -Z1`', timed: dump }),
      line('`cairn restore` (archive → new database, checked)', rows, restore, { name: '`pg_restore`', timed: pgRestore }),
      line('`cairn copy` (→ new database, verified)', rows, copy, { name: '`pg_dump` + `pg_restore`', timed: dumpAndRestore }),
      line(`\`cairn backup\` (PGlite, ${EMBEDDED_PATIENTS.toLocaleString('en-US')} patients)`, embeddedRows, embeddedBackup),
      line('`cairn copy` (PGlite → PostgreSQL, verified)', embeddedRows, move),
      '',
      `Archive of the PostgreSQL installation: ${mb(fs.statSync(archive).size)} MB (gzip level 1); pg_dump's ${mb(fs.statSync(dumpFile).size)} MB.`,
      '',
    ].join('\n');
  } finally {
    cluster.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** A tenant of `patients` patients, with as many tasks and calendar events. */
function seed(patients: number, env: NodeJS.ProcessEnv) {
  const count = String(patients);
  cli(['seed', 'bulk', '--tenant', 'operating', '--patients', count, '--tasks', count, '--events', count], env);
}

/** A command's own breakdown: its `Time:` line. */
function phasesOf(command: Timed): string {
  return /^Time: (.*)$/m.exec(command.output)?.[1] ?? '–';
}

/** Whole seconds, or tenths below ten (the quick sizes' times). */
function seconds(value: number): string {
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} s`;
}

function rowsOf(backup: Timed): number {
  return Number(/\((\d+) rows\)/.exec(backup.output)?.[1]);
}

standalone(import.meta.url, 'operating', () => benchOperating());
