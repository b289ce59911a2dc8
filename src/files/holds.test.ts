import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { TestClock } from '../test/clock.ts';
import { multipart, sampleFile } from '../test/files.ts';
import { createPatient, createTestTenant, startApp } from '../test/harness.ts';
import { holdBlobs, releaseBlobs } from './holds.ts';

/**
 * A backup's hold on blob removals (holds.ts): a file deleted while it lasts keeps its blob, its
 * `files.remove` job waiting without spending attempts; once released, the blob goes within a minute.
 */
// Holds are the installation's, and test files share a database: this one's clock (and so its
// hold) lies years before any other test's, whose removals therefore never see it.
const clock = new TestClock('2001-05-04T10:00:00.000Z');
const app = await startApp({}, { clock });

test('a held blob outlives its file until the hold ends, its removal job waiting unspent', async () => {
  const t = await createTestTenant(app);
  const patient = await createPatient(t);
  const base = `${t.base}/patients/${patient.id}/document-summary`;
  const summary = (await t.api.post(base, { type: 'doc-type-others' })).body;
  const upload = multipart([{ name: 'held.pdf', content: sampleFile('pdf', 300) }]);
  const [entry] = (await t.api.request('POST', `${base}/${summary.id}/files`, upload.body, upload.headers)).body;
  const blob = path.join(app.config.dataDir, 'files', entry.storageKey);
  assert.ok(fs.existsSync(blob));

  const hold = await holdBlobs(app.services.db, 'backup', new Date(clock.now().getTime() + 3_600_000));
  assert.equal((await t.api.delete(`${base}/${summary.id}`)).status, 200);
  await app.jobs.drain();
  assert.ok(fs.existsSync(blob), 'removed while held');
  const waiting = await app.services.db
    .selectFrom('jobs')
    .select(['state', 'attempts', 'run_at'])
    .where('tenant_id', '=', t.tenant.id)
    .where('kind', '=', 'files.remove')
    .executeTakeFirstOrThrow();
  assert.equal(waiting.state, 'QUEUED');
  assert.equal(waiting.attempts, 0, 'a deferral spends no attempt');
  assert.equal(new Date(waiting.run_at!).getTime(), clock.now().getTime() + 60_000, 'asked again in a minute');

  await releaseBlobs(app.services.db, hold);
  clock.advance(60_000);
  await app.jobs.drain();
  assert.ok(!fs.existsSync(blob), 'kept after the hold ended');
});
