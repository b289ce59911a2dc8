import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { areas } from '../../areas.ts';
import { openDatabase } from '../../db/database.ts';
import { mergeAreas } from '../../platform/area.ts';
import { TestClock } from '../../test/clock.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import { Api, createTestTenant } from '../../test/harness.ts';
import { cairn, openApp, startS3 } from '../../test/installations.ts';
import { startReceiver } from '../../test/receiver.ts';
import { fullFormation, seedFixtures } from '../../test/route-fixtures.ts';
import { scratchSchema } from '../../test/scratch-schema.ts';

/**
 * `cairn copy` from the embedded database and local files to a PostgreSQL server (or Citus) and
 * an S3 store (s3rver): a tenant with a record of every area and a few thousand bulk patients is
 * copied; the first run is killed part way, the second resumes and verifies; then the copy serves
 * what the original serves (the first page of every export, a file's bytes), the old token and
 * client secret still open it, and a webhook's deliveries from it verify with the old secret. (A
 * copy served by `cairn serve` after its original relayed its outbox: copy-webhooks.test.ts.)
 */
const skip = process.env.DATABASE_URL ? false : 'copies into PostgreSQL: runs in the PostgreSQL and Citus legs';

describe('cairn copy', { skip, timeout: 600_000 }, () => {
  test('copies an installation to PostgreSQL and S3, resumes after a kill, and serves the same answers', async () => {
    mergeAreas(areas);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-copy-'));
    const s3 = await startS3('cairn-copy');
    const { schema, url: targetUrl } = await scratchSchema(process.env.DATABASE_URL!, 'cairn_install');
    after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const sourceEnv = { CAIRN_DATA_DIR: dataDir, DATABASE_URL: '' };

    // The original: a record of every area, a file, a webhook; then bulk patients.
    const original = await openApp(sourceEnv);
    const formation = fullFormation();
    const t = await createTestTenant(original, formation);
    const fixtures = await seedFixtures(t, 'a', formation);
    const content = sampleFile('pdf', 5000);
    const summary = await t.api.post(`${t.base}/patients/${fixtures.ids.patient}/document-summary`, { type: 'doc-type-others' });
    const upload = multipart([{ name: 'scan.pdf', content }]);
    const [file] = (
      await t.api.request(
        'POST',
        `${t.base}/patients/${fixtures.ids.patient}/document-summary/${summary.body.id}/files`,
        upload.body,
        upload.headers,
      )
    ).body as { id: string }[];
    const receiver = await startReceiver();
    const hook = (
      await t.api.post(`${t.admin}/webhooks`, { name: 'copied', url: `${receiver.url}/hook`, eventEntities: ['PATIENT'] })
    ).body as { secret: string };
    await original.close();
    const env = { ...process.env, ...sourceEnv, ...s3.credentials, LOG_LEVEL: 'warn' };
    await cairn(['seed', 'bulk', '--tenant', t.tenant.name, '--patients', '3000', '--tasks', '3000', '--events', '3000'], env);

    // The first copy is killed once it has written rows (named in its schema: `public` may have a patients table too); the second goes on from there.
    const args = ['--import', 'tsx', 'src/cli.ts', 'copy', '--to', targetUrl, '--files-to', s3.url];
    const first = spawn(process.execPath, args, { env, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => first.once('exit', (_code, signal) => resolve(signal)));
    const target = await openDatabase({ databaseUrl: targetUrl, dataDir: '', poolSize: 1 });
    try {
      for (;;) {
        const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(`${schema}.patients`)}`
          .execute(target.db)
          .catch(() => ({ rows: [{ n: 0 }] }));
        if (rows[0]!.n > 0 || first.exitCode !== null) break;
        await sleep(20);
      }
      first.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL', 'the first copy finished before it could be interrupted');
    } finally {
      await target.close();
    }
    assert.match(
      await cairn(args.slice(3), env),
      /Resumed and finished the copy: \d+ tables \(\d+ rows\) and \d+ files, checked row by row and blob by blob/,
    );

    const copiedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-copied-'));
    after(() => fs.rmSync(copiedDir, { recursive: true, force: true }));
    // One clock standing still for both sides: a signed link's expiry must not cross a second between them.
    const clock = new TestClock();
    const copy = await openApp({ DATABASE_URL: targetUrl, CAIRN_DATA_DIR: copiedDir, ...s3.env }, clock);
    const again = await openApp(sourceEnv, clock);
    // The token the original signed opens the copy: every answer is compared through it.
    const [fromOriginal, fromCopy] = [new Api(again.server, t.adminClient.token), new Api(copy.server, t.adminClient.token)];
    const exports = [...mergeAreas(areas).declarations.exports.keys()];
    // The access log first: every other read adds to it, on each side.
    for (const name of ['ACCESS_LOG', ...exports.filter((name) => name !== 'ACCESS_LOG')]) {
      const [a, b] = [
        await fromOriginal.get(`${t.base}/export/${name}?pageSize=200`),
        await fromCopy.get(`${t.base}/export/${name}?pageSize=200`),
      ];
      assert.equal(b.status, 200, `${name}: ${b.text}`);
      assert.deepEqual((b.body as { data: unknown[] }).data, (a.body as { data: unknown[] }).data, name);
    }
    const patients = `${t.base}/patients?size=50&sort=lastName`;
    assert.deepEqual((await fromCopy.get(patients)).body, (await fromOriginal.get(patients)).body);
    const download = await copy.server.inject({
      method: 'GET',
      url: `${t.base}/patients/${fixtures.ids.patient}/document-summary/${summary.body.id}/files/${file!.id}`,
      headers: { authorization: `Bearer ${t.adminClient.token}` },
    });
    assert.equal(download.statusCode, 200);
    assert.deepEqual(download.rawPayload, content);

    // The API client's secret still signs in; the webhook's secret still signs its deliveries.
    const login = await copy.server.inject({
      method: 'POST',
      url: '/auth/token',
      payload: { apiClient: t.adminClient.clientKey, secret: t.adminClient.secret },
    });
    assert.equal(login.statusCode, 200, login.body);
    await fromCopy.post(`${t.base}/patients`, { firstName: 'After', lastName: 'Copy' });
    await copy.services.jobs.drain({ tenants: [t.tenant.id] });
    assert.ok(receiver.received.length > 0, 'the copy delivered no webhook');
    for (const delivered of receiver.received)
      assert.doesNotThrow(() => new Webhook(hook.secret).verify(delivered.body, delivered.headers));
  });
});
