/**
 * `npm test [-- <path filter>...]`: runs every *.test.ts with Node's test runner.
 *
 * On PGlite (DATABASE_URL unset) it first builds one migrated database and dumps it, so each
 * test process starts from a copy in about a second instead of running initdb and migrations.
 * On PostgreSQL it migrates the database once, before the test processes share it.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { dropTestSchemas } from '../src/test/scratch-schema.ts';

const filters = process.argv.slice(2);
// The server's tests under src/, and each client package's under clients/<language>/test/.
const testsUnder = (dir: string) =>
  fs.existsSync(dir)
    ? fs
        .readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.test.ts') && !file.includes('node_modules'))
        .map((file) => path.join(dir, file))
    : [];
/**
 * Files that test no database behaviour: a browser driving pages, and the typed client over HTTP.
 * They answer the same on both databases, so the PostgreSQL run (CI's second) leaves them to the
 * PGlite one, which keeps CI within its 30 minutes.
 */
const databaseIndependent = [/^src\/http\/browser\.test\.ts$/, /^src\/http\/console(-[a-z-]+)?\.test\.ts$/, /^clients\//];
/**
 * The files that take longest (one to four minutes each, against seconds for most), started first:
 * the runner starts files in the order given, and a long one started last keeps the run going
 * alone on one core at its end.
 */
const heaviest = [
  'src/http/route-checks.test.ts',
  'src/cli/cli.test.ts',
  'src/cli/access-kill.test.ts',
  'src/cli/operating/backup.test.ts',
  'src/cli/cli-demo.test.ts',
  'src/http/console.test.ts',
  'src/http/console-patients.test.ts',
  'src/modules/auth/token-limit.test.ts',
  'src/http/console-access-log.test.ts',
  'src/http/console-formation.test.ts',
];
const heaviness = (file: string) => {
  const rank = heaviest.indexOf(file.split(path.sep).join('/'));
  return rank < 0 ? 0 : heaviest.length - rank;
};
const onPostgres = Boolean(process.env.DATABASE_URL);
const files = [...testsUnder('src'), ...testsUnder('clients')]
  .filter((file) => !onPostgres || !databaseIndependent.some((pattern) => pattern.test(file.split(path.sep).join('/'))))
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort()
  .sort((a, b) => heaviness(b) - heaviness(a));
if (files.length === 0) {
  console.error(`No test files match ${filters.join(' ')}`);
  process.exit(1);
}

const env = { ...process.env };
// Node keeps each module's transpiled TypeScript and V8 code here, so the ~300 test processes of a
// run (and of the next engine's run) after the first load the app in about 60% of the CPU.
env.NODE_COMPILE_CACHE ??= path.resolve('node_modules', '.cache', 'node-compile');
if (onPostgres && process.env.DATABASE_URL) {
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', poolSize: 1 });
  await migrateToLatest(database.db);
  await database.close();
  const engine = database.kind === 'citus' ? 'a Citus coordinator' : 'PostgreSQL';
  console.log(`Testing against ${engine} (${new URL(process.env.DATABASE_URL).host}) on Node ${process.version}`);
} else {
  const database = await openDatabase({ databaseUrl: '', dataDir: 'memory://', poolSize: 1 });
  await migrateToLatest(database.db);
  const pglite = database.pglite;
  if (!pglite) throw new Error('the PGlite handle is not exposed');
  const template = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-test-')), 'template.tar');
  fs.writeFileSync(template, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()));
  await database.close();
  env.CAIRN_TEST_TEMPLATE = template;
  console.log(`Testing against PGlite on Node ${process.version}`);
}

// Each file is its own process with its own PGlite; two at a time suits a 2-core machine.
const concurrency = process.env.TEST_CONCURRENCY ?? String(Math.max(1, Math.min(os.availableParallelism(), 4)));
// Node 24 compiles the TypeScript itself (--experimental-transform-types): each test process loads
// the app in about 2.5 s of CPU against 3.3 s through tsx's loader, over some 300 processes a run.
const result = spawnSync(
  process.execPath,
  [
    '--experimental-transform-types',
    '--disable-warning=ExperimentalWarning',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit', env },
);
if (env.CAIRN_TEST_TEMPLATE) fs.rmSync(path.dirname(env.CAIRN_TEST_TEMPLATE), { recursive: true, force: true });
if (onPostgres && process.env.DATABASE_URL) {
  // The test files' own schemas, left on Citus until no file migrates beside the drop (test/scratch-schema.ts).
  const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir: '', poolSize: 1 });
  await dropTestSchemas(database.db);
  await database.close();
}
process.exit(result.status ?? 1);
