import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

/**
 * One way to write, one clock, kept so by reading the source (like the layers test): a change
 * that opens its own transaction, writes an audit row or an event beside the unit of work, or
 * takes the time from the machine instead of the services' clock fails the build.
 */

const isTest = (file: string) => file.endsWith('.test.ts') || file.endsWith('/fixtures.ts') || file.startsWith('test/');
const sources = fs
  .readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !isTest(file))
  .map((file) => file.split(path.sep).join('/'))
  .map((file) => ({ file, text: fs.readFileSync(path.join('src', file), 'utf8') }));

/** The files where `pattern` appears, outside those allowed it. */
function offenders(pattern: RegExp, allowed: (file: string) => boolean): string[] {
  return sources.filter(({ file, text }) => !allowed(file) && pattern.test(text)).map(({ file }) => file);
}

test('only the unit of work (src/work) and the job queue (src/jobs) open transactions', () => {
  // And a backup's snapshot: read-only, so it writes nothing beside the unit of work.
  const snapshot = 'cli/operating/source.ts';
  assert.deepEqual(
    offenders(
      /\.transaction\(\)|startTransaction\(/,
      (file) => file.startsWith('work/') || file.startsWith('jobs/') || file === snapshot,
    ),
    [],
  );
});

test('audit rows and events are written only through the unit of work', () => {
  const insertsThem = /insertInto\(\s*'(audit_events|events)'|INSERT INTO (audit_events|events)\b/;
  assert.deepEqual(
    offenders(insertsThem, (file) => file.startsWith('work/')),
    [],
  );
  // Their row builders are the model's, and only the unit of work calls them.
  assert.deepEqual(
    offenders(/\b(auditRow|eventRow)\(/, (file) => file.startsWith('work/') || file.startsWith('events/')),
    [],
  );
});

test("the time comes from the services' clock", () => {
  // The clock itself, and an error body's own date (when it was answered, not a record's time).
  const machineTime = /new Date\(\)/;
  assert.deepEqual(
    offenders(machineTime, (file) => file === 'http/services.ts' || file === 'wire/errors.ts'),
    [],
  );
  // Durations measured by the process (start-up deadlines, worker restarts, load progress), never
  // stored; and a new id's millisecond, which orders ids rather than dates a record.
  const durations = new Set(['db/availability.ts', 'cli/serve.ts', 'cli/seed-bulk.ts', 'db/ids.ts']);
  assert.deepEqual(
    offenders(/Date\.now\(\)/, (file) => durations.has(file)),
    [],
  );
});

test('row ids come from db/ids.ts (uuid v7 on a pool of random bytes)', () => {
  assert.deepEqual(
    offenders(/\bv7\b.*from 'uuid'/, (file) => file === 'db/ids.ts'),
    [],
  );
});

test('the suite runs on a supported Node: the 24 that npm ci installs, at least the engines range', () => {
  const engines = JSON.parse(fs.readFileSync('package.json', 'utf8')).engines.node as string;
  const least = Number(/>=\s*(\d+)/.exec(engines)?.[1]);
  assert.ok(least >= 22, `engines ${engines}: Node 20 is out of security support`);
  assert.ok(Number(process.versions.node.split('.')[0]) >= least, `running on Node ${process.version}, outside ${engines}`);
});
