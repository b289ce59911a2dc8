import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { TestClock } from '../../test/clock.ts';
import { Api, assertCode, assertValidation, auditOf, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/** TOTP sign-in (issue 41): enrolment, codes at the test clock's time, replays, recovery codes, limits. */

const clock = new TestClock('2026-06-01T12:00:10.000Z');
const app = await startApp({}, { clock });
const anonymous = new Api(app.server, undefined);
const password = 'correct horse battery';
const STEP = 30_000;

interface User {
  t: TestTenant;
  id: string;
  username: string;
  signIn: { tenantName: string; username: string; password: string };
}

/** A user with a password and a role reading patients, in a tenant of its own unless one is given. */
async function newUser(t?: TestTenant, username = 'nurse.joy'): Promise<User> {
  const tenant = t ?? (await createTestTenant(app));
  const made = await tenant.api.post(`${tenant.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Joy',
    lastName: 'Nurse',
    roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
  });
  assert.equal(made.status, 201, made.text);
  assert.equal((await tenant.api.put(`${tenant.admin}/users/${username}/password`, { password })).status, 200);
  return { t: tenant, id: made.body.id, username, signIn: { tenantName: tenant.tenant.name, username, password } };
}

/** The code an authenticator app shows now (the test clock's now) for `secret`. */
function codeAt(secret: string, at = clock.now()): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });
}

/** Enrols and confirms the user's factor: its secret and recovery codes. */
async function enrolled(user: User): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await anonymous.post('/auth/mfa/totp', user.signIn);
  assert.equal(started.status, 201, started.text);
  const { secret } = started.body;
  const confirmed = await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: codeAt(secret) });
  assert.equal(confirmed.status, 200, confirmed.text);
  // The confirming code's step is taken: the next sign-in waits for the next code.
  clock.advance(STEP);
  return { secret, recoveryCodes: confirmed.body.recoveryCodes };
}

const token = (user: User, code?: string) => anonymous.post('/auth/token', { ...user.signIn, ...(code ? { code } : {}) });

describe('TOTP enrolment', () => {
  test('start, confirm with a code, then /auth/token needs a code, each code good once', async () => {
    const user = await newUser();
    const started = await anonymous.post('/auth/mfa/totp', user.signIn);
    assert.equal(started.status, 201, started.text);
    assert.deepEqual(Object.keys(started.body).sort(), ['otpauthUrl', 'qrCode', 'secret']);
    const { secret, otpauthUrl, qrCode } = started.body;
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(otpauthUrl);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.host, 'totp');
    assert.equal(decodeURIComponent(uri.pathname), '/Cairn:nurse.joy');
    assert.equal(uri.searchParams.get('issuer'), 'Cairn');
    assert.equal(uri.searchParams.get('secret'), secret);
    assert.equal(uri.searchParams.get('algorithm'), 'SHA1');
    assert.equal(uri.searchParams.get('digits'), '6');
    assert.equal(uri.searchParams.get('period'), '30');
    assert.match(qrCode, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    // The secret is sealed at rest, never kept as given.
    const row = await app.services.db
      .selectFrom('user_mfa')
      .selectAll()
      .where('tenant_id', '=', user.t.tenant.id)
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    assert.ok(!row.totp_sealed.includes(secret));
    assert.equal(row.confirmed_at, null);

    // Unconfirmed, the factor asks nothing of a sign-in.
    assert.equal((await token(user)).status, 200);

    assertCode(await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: '000000' }), 401, 'INVALID_MFA_CODE');
    const confirmCode = codeAt(secret);
    const confirmed = await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: confirmCode });
    assert.equal(confirmed.status, 200, confirmed.text);
    const { recoveryCodes } = confirmed.body;
    assert.equal(recoveryCodes.length, 10);
    assert.equal(new Set(recoveryCodes).size, 10);
    for (const code of recoveryCodes) assert.match(code, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);

    const required = await token(user);
    assertCode(required, 401, 'MFA_REQUIRED');
    assert.equal(required.body[0].message, 'A one-time code is required: send `code`');
    // The code that confirmed the factor is spent.
    assertCode(await token(user, confirmCode), 401, 'INVALID_MFA_CODE');

    clock.advance(STEP);
    const code = codeAt(secret);
    const signedIn = await token(user, code);
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal((await new Api(app.server, signedIn.body.token).get(`${user.t.base}/patients`)).status, 200);
    // A replay, even within the window, is refused; so is an earlier step's code.
    assertCode(await token(user, code), 401, 'INVALID_MFA_CODE');
    clock.advance(STEP);
    assertCode(await token(user, code), 401, 'INVALID_MFA_CODE');
    assert.equal((await token(user, codeAt(secret))).status, 200);
    // One step either side is taken (a phone's clock a little off); two are not.
    clock.advance(STEP);
    assert.equal((await token(user, codeAt(secret, new Date(clock.now().getTime() + STEP)))).status, 200);
    clock.advance(3 * STEP);
    assertCode(await token(user, codeAt(secret, new Date(clock.now().getTime() + 2 * STEP))), 401, 'INVALID_MFA_CODE');
    // A wrong password with a right code is the password's refusal, and leaves the code unspent.
    const next = codeAt(secret);
    assertCode(
      await token({ ...user, signIn: { ...user.signIn, password: 'wrong password' } }, next),
      401,
      'INVALID_USER_CREDENTIALS',
    );
    assert.equal((await token(user, next)).status, 200);

    // Once confirmed, a new start needs the code, then is refused.
    assertCode(await anonymous.post('/auth/mfa/totp', user.signIn), 401, 'MFA_REQUIRED');
    clock.advance(STEP);
    assertCode(await anonymous.post('/auth/mfa/totp', { ...user.signIn, code: codeAt(secret) }), 409, 'MFA_ALREADY_ENROLLED');

    const audit = await auditOf(user.t, { entityType: 'USER', entityId: user.id, action: 'USER_MFA_ENROLLED' });
    assert.equal(audit.length, 1);
    assert.equal((audit[0] as unknown as { actorName: string }).actorName, 'Joy Nurse');
  });

  test('a new start before confirming replaces the unconfirmed secret', async () => {
    const user = await newUser();
    const first = (await anonymous.post('/auth/mfa/totp', user.signIn)).body.secret;
    const second = (await anonymous.post('/auth/mfa/totp', user.signIn)).body.secret;
    assert.notEqual(first, second);
    assertCode(
      await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: codeAt(first) }),
      401,
      'INVALID_MFA_CODE',
    );
    assert.equal((await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: codeAt(second) })).status, 200);
    assertCode(
      await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, code: codeAt(second), totpCode: codeAt(second) }),
      401,
      'INVALID_MFA_CODE',
    );
    clock.advance(STEP);
    assertCode(
      await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, code: codeAt(second), totpCode: codeAt(second) }),
      409,
      'MFA_ALREADY_ENROLLED',
    );
  });

  test('confirming, renewing codes or removing without a factor is 409 MFA_NOT_ENROLLED', async () => {
    const user = await newUser();
    assertCode(await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: '123456' }), 409, 'MFA_NOT_ENROLLED');
    assertCode(await anonymous.post('/auth/mfa/recovery-codes', user.signIn), 409, 'MFA_NOT_ENROLLED');
    assertCode(await anonymous.post('/auth/mfa/totp/remove', user.signIn), 409, 'MFA_NOT_ENROLLED');
    // Started, not confirmed: no recovery codes yet, but the start can be removed.
    assert.equal((await anonymous.post('/auth/mfa/totp', user.signIn)).status, 201);
    assertCode(await anonymous.post('/auth/mfa/recovery-codes', user.signIn), 409, 'MFA_NOT_ENROLLED');
    assert.equal((await anonymous.post('/auth/mfa/totp/remove', user.signIn)).status, 204);
  });
});

describe('recovery codes', () => {
  test('each signs in once, in any case and with or without its dashes; new ones replace them all', async () => {
    const user = await newUser();
    const { secret, recoveryCodes } = await enrolled(user);
    const [first, second, third] = recoveryCodes as [string, string, string];
    assert.equal((await token(user, first)).status, 200);
    assertCode(await token(user, first), 401, 'INVALID_MFA_CODE');
    assert.equal((await token(user, second.toUpperCase().replaceAll('-', ''))).status, 200);
    assertCode(await token(user, second), 401, 'INVALID_MFA_CODE');

    const renewed = await anonymous.post('/auth/mfa/recovery-codes', { ...user.signIn, code: codeAt(secret) });
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal(renewed.body.recoveryCodes.length, 10);
    assert.ok(!renewed.body.recoveryCodes.includes(third));
    assertCode(await token(user, third), 401, 'INVALID_MFA_CODE');
    assert.equal((await token(user, renewed.body.recoveryCodes[0])).status, 200);
    // Kept as hashes only.
    const stored = await app.services.db
      .selectFrom('user_recovery_codes')
      .select('code_hash')
      .where('tenant_id', '=', user.t.tenant.id)
      .where('user_id', '=', user.id)
      .execute();
    assert.equal(stored.length, 10);
    for (const { code_hash } of stored) assert.match(code_hash, /^[0-9a-f]{64}$/);
    const audit = await auditOf(user.t, { entityId: user.id, action: 'USER_MFA_RECOVERY_CODES_REPLACED' });
    assert.equal(audit.length, 1);
  });
});

describe('limits', () => {
  test('wrong codes count as wrong secrets: they end in 429, which then holds for a right code too', async () => {
    const user = await newUser();
    const { secret } = await enrolled(user);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const answer = await token(user, '999999');
      statuses.push(answer.status);
      if (answer.status === 429) {
        assertCode(answer, 429, 'TOO_MANY_REQUESTS');
        assert.ok(Number(answer.headers['retry-after']) > 0);
        break;
      }
      assertCode(answer, 401, 'INVALID_MFA_CODE');
    }
    assert.equal(statuses.at(-1), 429, statuses.join(' '));
    assertCode(await token(user, codeAt(secret)), 429, 'TOO_MANY_REQUESTS');
  });
});

describe('removal', () => {
  test('needs the code, then the password alone signs in again', async () => {
    const user = await newUser();
    const { secret } = await enrolled(user);
    assertCode(await anonymous.post('/auth/mfa/totp/remove', user.signIn), 401, 'MFA_REQUIRED');
    assertCode(await anonymous.post('/auth/mfa/totp/remove', { ...user.signIn, code: '123456' }), 401, 'INVALID_MFA_CODE');
    const removed = await anonymous.post('/auth/mfa/totp/remove', { ...user.signIn, code: codeAt(secret) });
    assert.equal(removed.status, 204, removed.text);
    assert.equal(removed.text, '');
    assert.equal((await token(user)).status, 200);
    assertCode(await anonymous.post('/auth/mfa/totp/remove', user.signIn), 409, 'MFA_NOT_ENROLLED');
    const left = await app.services.db
      .selectFrom('user_recovery_codes')
      .select('code_hash')
      .where('tenant_id', '=', user.t.tenant.id)
      .where('user_id', '=', user.id)
      .execute();
    assert.deepEqual(left, []);
    const audit = await auditOf(user.t, { entityId: user.id, action: 'USER_MFA_REMOVED' });
    assert.equal(audit.length, 1);
  });
});

describe('bad input', () => {
  test('is 400 VALIDATION_ERROR naming the field', async () => {
    const user = await newUser();
    const { tenantName, username } = user.signIn;
    assertValidation(await anonymous.post('/auth/mfa/totp', { tenantName, username }), 'body.password');
    assertValidation(await anonymous.post('/auth/mfa/totp', { ...user.signIn, tenantName: '' }), 'body.tenantName');
    assertValidation(await anonymous.post('/auth/mfa/totp', { ...user.signIn, code: '12345' }), 'body.code');
    assertValidation(await anonymous.post('/auth/mfa/totp', { ...user.signIn, code: 'x'.repeat(65) }), 'body.code');
    assertValidation(await anonymous.post('/auth/mfa/totp', { ...user.signIn, code: 123456 }), 'body.code');
    assertValidation(await anonymous.post('/auth/mfa/totp/confirm', user.signIn), 'body.totpCode');
    assertValidation(await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: '12345a' }), 'body.totpCode');
    assertValidation(await anonymous.post('/auth/mfa/totp/confirm', { ...user.signIn, totpCode: 123456 }), 'body.totpCode');
    assertValidation(await anonymous.post('/auth/mfa/recovery-codes', {}));
    assertValidation(await anonymous.post('/auth/mfa/totp/remove', { ...user.signIn, password: 5 }), 'body.password');
    assertValidation(await token(user, '1'), 'body.code');
    // Wrong credentials are refused before anything else.
    assertCode(
      await anonymous.post('/auth/mfa/totp', { ...user.signIn, password: 'not the password' }),
      401,
      'INVALID_USER_CREDENTIALS',
    );
    assertCode(
      await anonymous.post('/auth/mfa/totp', { ...user.signIn, tenantName: 'no-such-tenant' }),
      401,
      'INVALID_USER_CREDENTIALS',
    );
  });
});

describe('tenants', () => {
  test("a user of tenant B cannot touch A's factor, nor sign in with A's codes", async () => {
    const a = await newUser(undefined, 'same.name');
    const b = await newUser(undefined, 'same.name');
    const { secret, recoveryCodes } = await enrolled(a);
    // B's credentials do not sign in under A's name, whatever the route.
    const bInA = { ...b.signIn, tenantName: a.t.tenant.name, password: 'B has another password' };
    await a.t.api.put(`${a.t.admin}/users/same.name/password`, { password });
    await b.t.api.put(`${b.t.admin}/users/same.name/password`, { password: bInA.password });
    const bOwn = { ...b.signIn, password: bInA.password };
    for (const path of ['/auth/mfa/totp', '/auth/mfa/recovery-codes', '/auth/mfa/totp/remove']) {
      assertCode(await anonymous.post(path, bInA), 401, 'INVALID_USER_CREDENTIALS', path);
    }
    // B's own routes reach B's user only: B has no factor, and A's codes do nothing for B.
    assertCode(await anonymous.post('/auth/mfa/totp/remove', bOwn), 409, 'MFA_NOT_ENROLLED');
    assert.equal((await anonymous.post('/auth/token', { ...bOwn, code: recoveryCodes[0] })).status, 200);
    assert.equal((await anonymous.post('/auth/mfa/totp', bOwn)).status, 201);
    assertCode(await anonymous.post('/auth/mfa/totp/confirm', { ...bOwn, totpCode: codeAt(secret) }), 401, 'INVALID_MFA_CODE');
    // A's factor is as it was: the code is still needed, and A's recovery code still works, once.
    assertCode(await token(a), 401, 'MFA_REQUIRED');
    assert.equal((await token(a, recoveryCodes[0])).status, 200);
    assert.equal((await token(a, codeAt(secret))).status, 200);
    assert.deepEqual(await auditOf(b.t, { entityId: a.id }), []);
  });
});

describe("the tenant's sign-in policy: a second factor required", () => {
  test('a user without one gets no token until they add one; API clients and other tenants are not concerned', async () => {
    const user = await newUser();
    const { t } = user;
    const policy = `${t.admin}/sign-in-policy`;
    assert.deepEqual((await t.api.get(policy)).body, { mfaRequired: false });
    assertValidation(await t.api.put(policy, { mfaRequired: 'yes' }), 'body.mfaRequired');
    assert.equal((await anonymous.put(`/${t.tenant.name}/admin/sign-in-policy`, { mfaRequired: true })).status, 401);
    const reader = await t.apiWith(['USER_READ']);
    assert.equal((await reader.get(policy)).status, 200);
    assertCode(await reader.put(policy, { mfaRequired: true }), 403, 'ACCESS_DENIED');
    const other = await newUser();
    assert.deepEqual((await t.api.put(policy, { mfaRequired: true })).body, { mfaRequired: true });
    assert.deepEqual((await t.api.get(policy)).body, { mfaRequired: true });
    assert.equal((await auditOf(t, { action: 'SIGN_IN_POLICY_UPDATED' })).length, 1);

    assertCode(await token(user), 403, 'MFA_ENROLLMENT_REQUIRED');
    // Another tenant's users are not concerned; nor are API clients.
    assert.equal((await token(other)).status, 200);
    assert.equal((await t.api.get(`${t.admin}/users`)).status, 200);
    // The MFA routes still sign the user in by password, to add the factor; then a code signs in.
    const { secret } = await enrolled(user);
    assert.equal((await token(user, codeAt(secret))).status, 200);
    assert.deepEqual((await t.api.put(policy, { mfaRequired: false })).body, { mfaRequired: false });
  });
});

describe("an administrator removes a user's lost factor", () => {
  test('DELETE /admin/users/{userName}/mfa: 204, audited; then 409; 404, 401, 403 and tenant isolation', async () => {
    const user = await newUser();
    const { t } = user;
    await enrolled(user);
    assertCode(await token(user), 401, 'MFA_REQUIRED');
    const path = `${t.admin}/users/${user.username}/mfa`;
    assert.equal((await anonymous.delete(path)).status, 401);
    assertCode(await (await t.apiWith(['USER_READ'])).delete(path), 403, 'ACCESS_DENIED');
    const elsewhere = await createTestTenant(app);
    assertCode(await elsewhere.api.delete(`${elsewhere.admin}/users/${user.username}/mfa`), 404, 'USER_NOT_FOUND');
    assertCode(await t.api.delete(`${t.admin}/users/nobody-here/mfa`), 404, 'USER_NOT_FOUND');
    assert.equal((await t.api.delete(path)).status, 204);
    assert.equal((await token(user)).status, 200, 'the password alone signs in again');
    assertCode(await t.api.delete(path), 409, 'MFA_NOT_ENROLLED');
    const audit = await auditOf(t, { entityId: user.id, action: 'USER_MFA_REMOVED' });
    assert.equal(audit.length, 1);
  });
});
