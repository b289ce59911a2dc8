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

  test('the block ends after its time, and wrong secrets count toward the limit', async () => {
    const app = await startApp({ tokenLimit: { max: 3, windowSeconds: 60, blockSeconds: 1 } });
    const t = await createTestTenant(app);
    const anonymous = new Api(app.server, undefined);
    const good = { apiClient: t.adminClient.clientKey, secret: t.adminClient.secret };
    for (let i = 0; i < 3; i++) assert.equal((await anonymous.post('/auth/token', { ...good, secret: 'wrong' })).status, 401);
    assert.equal((await anonymous.post('/auth/token', good)).status, 429);
    await sleep(1200);
    assert.equal((await anonymous.post('/auth/token', good)).status, 200);
  });
});
