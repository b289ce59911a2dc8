import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { call, startServer } from '../test/processes.ts';

/**
 * The `cairn` command end to end, as an operator runs it: each step is a real process. On
 * PostgreSQL the server runs with two workers to show that the token limit is shared. On PGlite
 * the first step migrates a new, empty data directory from nothing (the only test that does; the
 * demo's first start, in cli-demo.test.ts, starts from the runner's migrated template).
 */

const run = promisify(execFile);
const onPostgres = Boolean(process.env.DATABASE_URL);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-cli-'));
const env = {
  ...process.env,
  CAIRN_DATA_DIR: dataDir,
  CAIRN_DEMO: 'false',
  LOG_LEVEL: 'warn',
  ...(onPostgres ? { DATABASE_POOL_SIZE: '4' } : {}),
};
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function cairn(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env, timeout: 60_000 });
  return stdout;
}

const post = (url: string, body: unknown) => call('POST', url, body);

describe('the cairn command', () => {
  const tenant = `cli${randomBytes(4).toString('hex')}`;
  let clientKey = '';
  let secret = '';

  test('creates a tenant, an instance, a formation, a client and a user', async () => {
    assert.match(await cairn('migrate'), /Applied|up to date/);
    assert.match(await cairn('tenant', 'create', tenant), /Created tenant/);
    assert.match(await cairn('instance', 'create', tenant, 'sandbox'), /Created instance/);
    assert.match(await cairn('formation', 'apply', `${tenant}/sandbox`, 'formations/demo.json'), /Published formation version 1/);
    const created = await cairn('client', 'create', tenant, '--name', 'integration', '--role', 'sandbox:administrator');
    clientKey = /key: +(\S+)/.exec(created)?.[1] ?? '';
    secret = /secret: +(\S+)/.exec(created)?.[1] ?? '';
    assert.ok(clientKey && secret, created);
    const user = await cairn(
      'user',
      'create',
      tenant,
      '--username',
      'cli.user',
      '--email',
      'cli.user@example.org',
      '--role',
      'sandbox:care-coordinator',
      '--password',
      'a long password 1',
    );
    assert.match(user, /Created user cli.user/);
    // Only a slow hash of the secret is stored.
    await assert.rejects(
      cairn('client', 'create', tenant, '--name', 'integration', '--role', 'sandbox:administrator'),
      /already exists/,
    );
    await assert.rejects(cairn('tenant', 'create', 'auth'), /reserved/);
  });

  test('the sandbox: a message comes in, the outbox is read, an unknown message is not settled', async () => {
    const inbound = (...more: string[]) =>
      cairn('sandbox', 'inbound', `${tenant}/sandbox`, '--channel', 'EMAIL', '--to', 'care@clinic.example', ...more);
    const received = JSON.parse(await inbound('--from', 'who@elsewhere.example', '--subject', 'Hello', '--message', 'Anyone?'));
    assert.equal(received.channel, 'EMAIL');
    assert.equal(received.status, 'UNRECOGNISED');
    assert.equal(received.patientId, null);
    await assert.rejects(inbound('--from', 'not an address'), /body.from: must be an email address/);
    await assert.rejects(cairn('sandbox', 'outbox', `${tenant}/sandbox`, '--channel', 'PIGEON'), /--channel: one of/);
    assert.equal(await cairn('sandbox', 'outbox', `${tenant}/sandbox`), '');
    await assert.rejects(
      cairn('sandbox', 'deliver', `${tenant}/sandbox`, '0190b7a0-0000-7000-8000-000000000000'),
      /No such message in the sandbox/,
    );
  });

  test("access-log verify: checks a tenant's chain, and names an unknown tenant", async () => {
    assert.match(
      await cairn('access-log', 'verify', tenant),
      new RegExp(`The access log of ${tenant} is intact: 0 seals, 0 records sealed`),
    );
    await assert.rejects(cairn('access-log', 'verify', 'no-such-tenant'), /No tenant "no-such-tenant"/);
    // A hash published earlier that the chain does not hold: its seal was removed.
    await assert.rejects(cairn('access-log', 'verify', tenant, '--hash', 'a'.repeat(64)), (error: { stdout?: string }) =>
      /BROKEN at seal 1: the published hash a{64} is not in the chain/.test(error.stdout ?? ''),
    );
    await assert.rejects(cairn('access-log', 'verify', tenant, '--hash', 'nope'), /--hash takes a seal hash/);
    // The shortest retention the installation ran with, for removals made before it was raised.
    assert.match(await cairn('access-log', 'verify', tenant, '--retention-days', '30'), /is intact/);
    await assert.rejects(cairn('access-log', 'verify', tenant, '--retention-days', 'six'), /--retention-days takes a number/);
  });

  test(`serves the API${onPostgres ? ' with two workers that share the token limit' : ''}`, { timeout: 180_000 }, async () => {
    const { base, child } = await startServer(onPostgres ? 2 : 1, env);
    if (!onPostgres) {
      // One process serving: it restarted itself with the heap settings every serving process has (cli/heap.ts).
      const args = fs.readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
      assert.ok(args.includes('--max-semi-space-size=8') && args.includes('--max-old-space-size=256'), args.join(' '));
    }
    const login = await post(`${base}/auth/token`, { apiClient: clientKey, secret });
    assert.equal(login.status, 200);
    const patients = await call('GET', `${base}/${tenant}/sandbox/patients`, undefined, login.body.token);
    assert.equal(patients.status, 200);
    const userLogin = await post(`${base}/auth/token`, {
      tenantName: tenant,
      username: 'cli.user',
      password: 'a long password 1',
    });
    assert.equal(userLogin.status, 200);
    const metrics = await call('GET', `${base}/metrics`);
    assert.match(metrics.text, /cairn_http_requests_total/);
    if (!onPostgres) return;

    // Requests are spread over both workers (each answers /health/live with its id) ...
    const workers = new Set<number>();
    for (let i = 0; i < 10; i++) workers.add((await call('GET', `${base}/health/live`)).body.worker);
    assert.equal(workers.size, 2);
    // ... yet the 100-in-5-minutes limit counts across them: one login above, 99 more pass, then 429.
    const statuses: number[] = [];
    for (let i = 0; i < 99; i++) statuses.push((await post(`${base}/auth/token`, { apiClient: clientKey, secret })).status);
    assert.deepEqual([...new Set(statuses)], [200]);
    const blocked = await post(`${base}/auth/token`, { apiClient: clientKey, secret });
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers['retry-after']) > 0);
  });

  test('refuses --workers on the embedded database', { skip: onPostgres }, async () => {
    await assert.rejects(cairn('serve', '--workers', '2'), /DATABASE_URL/);
  });
});
