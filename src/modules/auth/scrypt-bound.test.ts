import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scryptConcurrencyFor } from '../../tenancy/secrets.ts';
import { Api, createTestTenant, errorCode, startApp } from '../../test/harness.ts';

/**
 * CAIRN_SCRYPT_CONCURRENCY bounds the secret hashes a process computes at once (tenancy/secrets.ts):
 * at a bound of one, a burst of sign-ins waits its turn and every request is still answered as it
 * would be alone, right secrets with a token, wrong ones 401.
 */

const app = await startApp({}, { env: { CAIRN_SCRYPT_CONCURRENCY: '1' } });
const anonymous = new Api(app.server, undefined);

test('a burst of sign-ins at one hash at a time: each answered, right and wrong alike', async () => {
  assert.equal(app.services.config.scryptConcurrency, 1);
  const t = await createTestTenant(app);
  const { clientKey, secret } = t.adminClient;
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      anonymous.post('/auth/token', { apiClient: clientKey, secret: i % 4 === 3 ? 'not-the-secret' : secret }),
    ),
  );
  assert.deepEqual(
    answers.map((answer) => answer.status),
    [200, 200, 200, 401, 200, 200, 200, 401],
  );
  for (const answer of answers.filter((candidate) => candidate.status === 401)) {
    assert.equal(errorCode(answer), 'INVALID_CLIENT_CREDENTIALS');
  }
  const patients = await new Api(app.server, answers[0]!.body.token).get(`${t.base}/patients`);
  assert.equal(patients.status, 200);
});

test('by default each serving process hashes its share of the cores at once, 1 or 2; a setting wins', () => {
  // (setting, serving processes, cores)
  assert.equal(scryptConcurrencyFor(0, 2, 2), 1);
  assert.equal(scryptConcurrencyFor(0, 8, 2), 1);
  assert.equal(scryptConcurrencyFor(0, 1, 2), 2);
  assert.equal(scryptConcurrencyFor(0, 1, 16), 2);
  assert.equal(scryptConcurrencyFor(0, 4, 16), 2);
  assert.equal(scryptConcurrencyFor(3, 2, 2), 3);
});
