import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { createTestTenant, startApp } from '../../test/harness.ts';
import { RETIRE_AFTER_MS, ROTATE_AFTER_MS } from './oauth/keys.ts';
import { SERVER_TTL_MS } from './oauth/servers.ts';

/**
 * The ID-token signing keys rotate (oauth/keys.ts): a new key signs once the newest is 90 days old,
 * the old one stays in the JWKS a day more, then goes. Over HTTP, on a clock the test moves.
 */

const clock = new TestClock('2026-01-01T00:00:00Z');
const app = await startApp({}, { clock });
after(() => app.server.close());

async function kids(path: string): Promise<string[]> {
  const response = await app.server.inject({ method: 'GET', url: path });
  assert.equal(response.statusCode, 200, response.body);
  return (JSON.parse(response.body) as { keys: { kid: string; d?: string }[] }).keys.map((key) => {
    assert.equal(key.d, undefined, 'the JWKS holds public keys only');
    return key.kid;
  });
}

describe('signing keys', () => {
  test('rotate after 90 days; the replaced key stays listed for a day, then goes', async () => {
    const t = await createTestTenant(app);
    const jwks = `${t.base}/fhir/R4/oauth/jwks`;
    const [first, ...none] = await kids(jwks);
    assert.ok(first);
    assert.deepEqual(none, []);

    clock.advance(ROTATE_AFTER_MS - SERVER_TTL_MS);
    assert.deepEqual(await kids(jwks), [first], 'kept by the node until its server is made again');
    clock.advance(SERVER_TTL_MS + 1);
    const rotated = await kids(jwks);
    assert.equal(rotated.length, 2);
    assert.equal(rotated[1], first, 'the new key first (it signs), the old one still listed');

    clock.advance(RETIRE_AFTER_MS + SERVER_TTL_MS);
    assert.deepEqual(await kids(jwks), [rotated[0]], 'the old key goes a day after its successor took over');
  });
});
