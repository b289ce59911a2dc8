import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { describe, test } from 'node:test';
import { TestClock } from '../test/clock.ts';
import { Api, assertCode, createTestTenant, startApp, type TestTenant } from '../test/harness.ts';
import { removeExpiredKeys } from './idempotency-store.ts';

/**
 * Idempotency-Key on writes (http/idempotency.ts): one record however often a write is retried,
 * concurrently or after a dropped connection; a replay is the first answer byte for byte.
 */

const clock = new TestClock(new Date('2026-11-26T09:00:00.000Z'));
const app = await startApp({}, { clock });
const { db } = app.services;

const withKey = (api: Api, method: 'POST' | 'PATCH' | 'PUT', url: string, body: unknown, key: string) =>
  api.request(method, url, body, { 'idempotency-key': key });

async function patientCount(t: TestTenant): Promise<number> {
  const row = await db
    .selectFrom('patients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', t.tenant.id)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const keyRow = (t: TestTenant, key: string) =>
  db.selectFrom('idempotency_keys').selectAll().where('tenant_id', '=', t.tenant.id).where('key', '=', key).executeTakeFirst();

const patient = { firstName: 'Ann', lastName: 'Lee' };

describe('Idempotency-Key', () => {
  test('a repeat answers the first response byte for byte, marked as a replay, and writes nothing', async () => {
    const t = await createTestTenant(app);
    const key = randomUUID();
    const first = await withKey(t.api, 'POST', `${t.base}/patients`, patient, key);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    // The create's own statement wrote the key (work/unit.ts), then its answer was kept.
    const kept = await keyRow(t, key);
    assert.ok(kept?.committed_at);
    assert.equal(kept.status_code, 201);
    const again = await withKey(t.api, 'POST', `${t.base}/patients`, patient, key);
    assert.equal(again.status, 201);
    assert.equal(again.text, first.text);
    assert.equal(again.headers['content-type'], first.headers['content-type']);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
    assert.equal(await patientCount(t), 1);
    // The draft's structured-field form (a quoted string) is the same key.
    const quoted = await withKey(t.api, 'POST', `${t.base}/patients`, patient, `"${key}"`);
    assert.equal(quoted.headers['idempotent-replayed'], 'true');
    // Without a key, a write is a write.
    assert.equal((await t.api.post(`${t.base}/patients`, patient)).status, 201);
    assert.equal(await patientCount(t), 2);
  });

  test('the same key with a different request is 422, and PATCH takes keys too', async () => {
    const t = await createTestTenant(app);
    const key = randomUUID();
    const created = await withKey(t.api, 'POST', `${t.base}/patients`, patient, key);
    assertCode(
      await withKey(t.api, 'POST', `${t.base}/patients`, { ...patient, lastName: 'Other' }, key),
      422,
      'IDEMPOTENCY_KEY_MISMATCH',
    );
    assertCode(await withKey(t.api, 'POST', `${t.base}/patients?x=1`, patient, key), 422, 'IDEMPOTENCY_KEY_MISMATCH');
    const id = created.body.id as string;
    const patchKey = randomUUID();
    const patched = await withKey(t.api, 'PATCH', `${t.base}/patients/${id}`, { lastName: 'Moss' }, patchKey);
    assert.equal(patched.status, 200, patched.text);
    await t.api.patch(`${t.base}/patients/${id}`, { lastName: 'Lee' });
    const replayed = await withKey(t.api, 'PATCH', `${t.base}/patients/${id}`, { lastName: 'Moss' }, patchKey);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.text, patched.text);
    // The replay did not write: the patient keeps the later name.
    assert.equal((await t.api.get(`${t.base}/patients/${id}`)).body.lastName, 'Lee');
  });

  test('keys belong to the tenant and the caller: another caller’s equal key is its own', async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const second = await t.clientWithRole('admin');
    const secondApi = new Api(app.server, second.token);
    const key = randomUUID();
    const mine = await withKey(t.api, 'POST', `${t.base}/patients`, patient, key);
    const theirs = await withKey(secondApi, 'POST', `${t.base}/patients`, patient, key);
    assert.equal(theirs.status, 201);
    assert.equal(theirs.headers['idempotent-replayed'], undefined);
    assert.notEqual(theirs.body.id, mine.body.id);
    const elsewhere = await withKey(other.api, 'POST', `${other.base}/patients`, patient, key);
    assert.equal(elsewhere.headers['idempotent-replayed'], undefined);
    assert.equal(await patientCount(t), 2);
    assert.equal(await patientCount(other), 1);
  });

  test('20 concurrent duplicates: one record, one 201, the rest replays or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const t = await createTestTenant(app);
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => withKey(t.api, 'POST', `${t.base}/patients`, patient, key)),
    );
    const firsts = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
    assert.equal(firsts.length, 1);
    for (const answer of answers) {
      if (answer === firsts[0]) continue;
      if (answer.status === 409) {
        assertCode(answer, 409, 'IDEMPOTENCY_KEY_IN_USE');
        assert.equal(answer.headers['retry-after'], '1');
      } else {
        assert.equal(answer.status, 201);
        assert.equal(answer.headers['idempotent-replayed'], 'true');
        assert.equal(answer.text, firsts[0]!.text);
      }
    }
    assert.equal(await patientCount(t), 1);
  });

  test('a write that rolls back keeps no key: a corrected retry under it runs', async () => {
    const t = await createTestTenant(app);
    const user = (username: string) => ({ username, email: `${username}@example.org` });
    assert.equal((await t.api.post(`${t.admin}/users`, user('taken.name'))).status, 201);
    const key = randomUUID();
    const refused = await withKey(t.api, 'POST', `${t.admin}/users`, user('taken.name'), key);
    assertCode(refused, 409, 'DUPLICATE_VALUE');
    assert.equal(await keyRow(t, key), undefined);
    const retried = await withKey(t.api, 'POST', `${t.admin}/users`, user('free.name'), key);
    assert.equal(retried.status, 201, retried.text);
    assert.equal((await keyRow(t, key))?.status_code, 201);
    // Bad input claims nothing either.
    const invalid = await withKey(t.api, 'POST', `${t.base}/patients`, { firstName: 5 }, key);
    assert.equal(invalid.status, 400);
  });

  test('a retry after a dropped connection creates one record', async () => {
    const t = await createTestTenant(app);
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.server.address() as net.AddressInfo;
    const key = randomUUID();
    const body = JSON.stringify(patient);
    // The request reaches the server; the client gives up before reading any answer.
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST ${t.base}/patients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.adminClient.token}\r\n` +
        `Content-Type: application/json\r\nIdempotency-Key: ${key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await until(async () => (await keyRow(t, key)) !== undefined);
    socket.destroy();
    // The client retries until the first request's answer is kept (409 while it still runs).
    let retry = await withKey(t.api, 'POST', `${t.base}/patients`, patient, key);
    await until(async () => {
      retry = await withKey(t.api, 'POST', `${t.base}/patients`, patient, key);
      return retry.status !== 409;
    });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.equal(await patientCount(t), 1);
  });

  test('keys outlive a restart (they are rows), expire after 24 hours, and the expiry job removes them', async () => {
    const t = await createTestTenant(app);
    const key = randomUUID();
    const first = await withKey(t.api, 'POST', `${t.base}/patients`, patient, key);
    // A second app on the same database (another node, or this one restarted) replays it.
    const restarted = await startApp({}, { clock });
    const replay = await restarted.server.inject({
      method: 'POST',
      url: `${t.base}/patients`,
      headers: { authorization: `Bearer ${t.adminClient.token}`, 'idempotency-key': key },
      payload: patient,
    });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.text);

    clock.advance(24 * 60 * 60_000 + 1);
    assert.ok((await removeExpiredKeys(db, clock.now())) >= 1);
    assert.equal(await keyRow(t, key), undefined);
    // The same caller, a day later (with a token of that day).
    const { token } = await app.services.tokens.issue({
      type: 'API_CLIENT',
      id: t.adminClient.id,
      tenantId: t.tenant.id,
      name: `API_CLIENT:${t.adminClient.name}`,
    });
    const fresh = await withKey(new Api(app.server, token), 'POST', `${t.base}/patients`, patient, key);
    assert.equal(fresh.status, 201);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.equal(await patientCount(t), 2);
  });

  test('a repeat whose own run would now fail (the first took the name) answers the first answer', async () => {
    const t = await createTestTenant(app);
    const key = randomUUID();
    const user = { username: 'once.only', email: 'once.only@example.org' };
    const first = await withKey(t.api, 'POST', `${t.admin}/users`, user, key);
    assert.equal(first.status, 201, first.text);
    const again = await withKey(t.api, 'POST', `${t.admin}/users`, user, key);
    assert.equal(again.status, 201, again.text);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, first.text);
    // Without the key, the same request is refused as a duplicate.
    assertCode(await t.api.post(`${t.admin}/users`, user), 409, 'DUPLICATE_VALUE');
  });

  test('an expired key the expiry job has not removed yet is taken as new', async () => {
    const t = await createTestTenant(app);
    const key = randomUUID();
    assert.equal((await withKey(t.api, 'POST', `${t.base}/patients`, patient, key)).status, 201);
    clock.advance(24 * 60 * 60_000 + 1);
    const { token } = await app.services.tokens.issue({
      type: 'API_CLIENT',
      id: t.adminClient.id,
      tenantId: t.tenant.id,
      name: `API_CLIENT:${t.adminClient.name}`,
    });
    const later = new Api(app.server, token);
    const fresh = await withKey(later, 'POST', `${t.base}/patients`, patient, key);
    assert.equal(fresh.status, 201, fresh.text);
    assert.equal(fresh.headers['idempotent-replayed'], undefined);
    assert.equal(await patientCount(t), 2);
    assert.equal((await withKey(later, 'POST', `${t.base}/patients`, patient, key)).headers['idempotent-replayed'], 'true');
  });

  test('a key is checked, documented on every write that takes it, and allowed to browsers', async () => {
    const t = await createTestTenant(app);
    assertCode(await withKey(t.api, 'POST', `${t.base}/patients`, patient, 'x'.repeat(256)), 400, 'INVALID_IDEMPOTENCY_KEY');
    assertCode(await withKey(t.api, 'POST', `${t.base}/patients`, patient, 'has space'), 400, 'INVALID_IDEMPOTENCY_KEY');
    // The token route needs no token, so it has no caller to scope a key to: the header is ignored.
    const document = (await t.anonymous.get('/openapi.json')).body;
    const create = document.paths['/{tenantName}/{instanceName}/patients'].post;
    assert.ok(create.parameters.some((p: { name: string; in: string }) => p.name === 'Idempotency-Key' && p.in === 'header'));
    assert.ok(
      !(document.paths['/{tenantName}/{instanceName}/patients'].get.parameters ?? []).some(
        (p: { name: string }) => p.name === 'Idempotency-Key',
      ),
    );
    const preflight = await app.server.inject({
      method: 'OPTIONS',
      url: `${t.base}/patients`,
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'idempotency-key',
      },
    });
    assert.match(String(preflight.headers['access-control-allow-headers']), /Idempotency-Key/i);
  });
});

async function until(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
