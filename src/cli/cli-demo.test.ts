import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { testDataDir } from '../test/data-dirs.ts';
import { call, startServer } from '../test/processes.ts';

/**
 * The demo's first start end to end, as an operator runs it: each step is a real `cairn`
 * process, on embedded databases of their own. The data directories start from the runner's
 * migrated template: cli.test.ts migrates one from nothing.
 */

const run = promisify(execFile);
const onPostgres = Boolean(process.env.DATABASE_URL);
const env = { ...process.env, CAIRN_DEMO: 'true', LOG_LEVEL: 'warn' };
const dataDirs: string[] = [];
after(() => {
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
});

async function demoDataDir(): Promise<string> {
  const dir = await testDataDir('cairn-demo-');
  dataDirs.push(dir);
  return dir;
}

const post = (url: string, body: unknown) => call('POST', url, body);

describe("the cairn command: the demo's first start", () => {
  test('first start: the demo client signs in on both token routes and creates a patient from the seed alone', {
    skip: onPostgres && 'the demo tenant is made once per database; the embedded one is fresh',
    // Two embedded databases and the demo seed; generous for a busy 2-core machine.
    timeout: 240_000,
  }, async () => {
    const demoEnv = { ...env, CAIRN_DATA_DIR: await demoDataDir() };
    const first = await startServer(1, demoEnv);
    const key = /key: +(\S+)/.exec(first.output())?.[1] ?? '';
    const demoSecret = /secret: +(\S+)/.exec(first.output())?.[1] ?? '';
    assert.ok(key && demoSecret, first.output());
    // An existing production client puts the key into {clientName} (DECISIONS §4).
    const login = await post(`${first.base}/demo/admin/api_clients/${key}`, { secret: demoSecret });
    assert.equal(login.status, 200, login.text);
    assert.equal((await post(`${first.base}/auth/token`, { apiClient: key, secret: demoSecret })).status, 200);
    const patient = await call(
      'POST',
      `${first.base}/demo/sandbox/patients`,
      { firstName: 'Ann', lastName: 'Lee' },
      login.body.token,
    );
    assert.equal(patient.status, 201, patient.text);
    first.stop();
    await first.stopped;
    // The demo seed fills the calendar too: work hours, appointments and encounters with their parts.
    const seeded = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'seed', 'demo'], {
      env: demoEnv,
      timeout: 120_000,
    });
    assert.match(seeded.stdout, /Seeded 40 patients/);
    // Later starts never print the secret again, even when it was fixed by the environment.
    const fixed = {
      ...env,
      CAIRN_DATA_DIR: await demoDataDir(),
      CAIRN_DEMO_CLIENT: 'fixed-demo-key',
      CAIRN_DEMO_SECRET: 'a-fixed-demo-secret-1',
    };
    const created = await startServer(1, fixed);
    assert.match(created.output(), /a-fixed-demo-secret-1/);
    created.stop();
    await created.stopped;
    const again = await startServer(1, fixed);
    assert.doesNotMatch(again.output(), /a-fixed-demo-secret-1/);
    assert.match(again.output(), /fixed-demo-key/);
    again.stop();
    await again.stopped;
  });
});
