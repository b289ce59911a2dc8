import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Api, createTestTenant, errorCode, startApp } from '../../test/harness.ts';

describe('token limit (000: more than 100 in 5 minutes blocks for 5 minutes)', () => {
  test('the 101st request within the window is 429 with Retry-After, and the block holds', async () => {
    const app = await startApp();
    const t = await createTestTenant(app);
    const anonymous = new Api(app.server, undefined);
    const body = { apiClient: t.adminClient.clientKey, secret: t.adminClient.secret };
    // Requests go out ten at a time; the limit is per client, held in the database.
    for (let sent = 0; sent < 100; sent += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => anonymous.post('/auth/token', body)));
      for (const response of batch) assert.equal(response.status, 200);
    }
    const blocked = await anonymous.post('/auth/token', body);
    assert.equal(blocked.status, 429);
    assert.equal(errorCode(blocked), 'TOO_MANY_REQUESTS');
    const retryAfter = Number(blocked.headers['retry-after']);
    assert.ok(retryAfter > 290 && retryAfter <= 300, `Retry-After ${retryAfter}`);
    // Still blocked, even with the right secret; another client is unaffected.
    assert.equal((await anonymous.post('/auth/token', body)).status, 429);
    const other = await t.clientWithRole('admin');
    assert.equal((await anonymous.post('/auth/token', { apiClient: other.clientKey, secret: other.secret })).status, 200);
  });

  test('the block ends after its time; wrong secrets do not count toward it', async () => {
    const app = await startApp(
      {},
      {
        env: {
          CAIRN_TOKEN_LIMIT: '3',
          CAIRN_TOKEN_FAILURE_LIMIT: '10',
          CAIRN_TOKEN_WINDOW_SECONDS: '60',
          CAIRN_TOKEN_BLOCK_SECONDS: '1',
        },
      },
    );
    const t = await createTestTenant(app);
    const anonymous = new Api(app.server, undefined);
    const good = { apiClient: t.adminClient.clientKey, secret: t.adminClient.secret };
    for (let i = 0; i < 5; i++) assert.equal((await anonymous.post('/auth/token', { ...good, secret: 'wrong' })).status, 401);
    for (let i = 0; i < 3; i++) assert.equal((await anonymous.post('/auth/token', good)).status, 200);
    assert.equal((await anonymous.post('/auth/token', good)).status, 429);
    await sleep(1200);
    assert.equal((await anonymous.post('/auth/token', good)).status, 200);
  });
});

const guarded = await startApp(
  {},
  {
    env: {
      CAIRN_TOKEN_LIMIT: '100',
      CAIRN_TOKEN_FAILURE_LIMIT: '3',
      CAIRN_TOKEN_WINDOW_SECONDS: '60',
      CAIRN_TOKEN_BLOCK_SECONDS: '300',
    },
  },
);

describe('wrong secrets (limited per caller and source address)', () => {
  const app = guarded;

  function tokenFrom(remoteAddress: string, payload: Record<string, string>, url = '/auth/token') {
    return app.server.inject({ method: 'POST', url, payload, remoteAddress });
  }

  test('more than the limit from one address blocks that address for that client only', async () => {
    const t = await createTestTenant(app);
    const good = { apiClient: t.adminClient.clientKey, secret: t.adminClient.secret };
    const wrong = { ...good, secret: 'a-guess' };
    // The attempt that passes the limit is still checked and refused; the next one is not even checked.
    for (let i = 0; i < 4; i++) assert.equal((await tokenFrom('203.0.113.9', wrong)).statusCode, 401);
    const blocked = await tokenFrom('203.0.113.9', good);
    assert.equal(blocked.statusCode, 429);
    assert.equal(JSON.parse(blocked.body)[0].errorCode, 'TOO_MANY_REQUESTS');
    assert.ok(Number(blocked.headers['retry-after']) > 290);
    // The real client, elsewhere, is not locked out; nor is another client from the blocked address.
    assert.equal((await tokenFrom('198.51.100.7', good)).statusCode, 200);
    const other = await t.clientWithRole('admin');
    assert.equal((await tokenFrom('203.0.113.9', { apiClient: other.clientKey, secret: other.secret })).statusCode, 200);
    // The production path counts against the same caller and address.
    const production = `/${t.tenant.name}/admin/api_clients/${t.adminClient.clientKey}`;
    assert.equal((await tokenFrom('203.0.113.9', { secret: t.adminClient.secret }, production)).statusCode, 429);
    assert.equal((await tokenFrom('198.51.100.7', { secret: t.adminClient.secret }, production)).statusCode, 200);
  });

  test("a user's wrong passwords are limited the same way", async () => {
    const t = await createTestTenant(app);
    await t.api.post(`${t.admin}/users`, { username: 'pat.guess', email: 'pat@example.org' });
    assert.equal((await t.api.put(`${t.admin}/users/pat.guess/password`, { password: 'the right password' })).status, 200);
    const login = { tenantName: t.tenant.name, username: 'pat.guess' };
    for (let i = 0; i < 4; i++) {
      assert.equal((await tokenFrom('203.0.113.10', { ...login, password: 'wrong password' })).statusCode, 401);
    }
    assert.equal((await tokenFrom('203.0.113.10', { ...login, password: 'the right password' })).statusCode, 429);
    assert.equal((await tokenFrom('198.51.100.8', { ...login, password: 'the right password' })).statusCode, 200);
  });

  test('unknown keys are limited per address too', async () => {
    for (let i = 0; i < 4; i++) {
      assert.equal((await tokenFrom('203.0.113.11', { apiClient: `no-such-key-${i}`, secret: 'x' })).statusCode, 401);
    }
    assert.equal((await tokenFrom('203.0.113.11', { apiClient: 'no-such-key', secret: 'x' })).statusCode, 429);
    assert.equal((await tokenFrom('198.51.100.9', { apiClient: 'no-such-key', secret: 'x' })).statusCode, 401);
  });
});
