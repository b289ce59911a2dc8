import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { Api, createTestTenant, errorCode, newInstance, startApp } from '../../test/harness.ts';

const jwtSecret = 'test-signing-key-that-is-at-least-32-chars';
const app = await startApp({ jwtSecret });
const anonymous = new Api(app.server, undefined);

describe('POST /auth/token', () => {
  test('issues a one-hour token for a client key and secret', async () => {
    const t = await createTestTenant(app);
    const before = Date.now();
    const response = await anonymous.post('/auth/token', { apiClient: t.adminClient.clientKey, secret: t.adminClient.secret });
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body).sort(), ['expiresAt', 'token']);
    assert.match(response.body.expiresAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    const lifetime = Date.parse(response.body.expiresAt) - before;
    assert.ok(lifetime > 3590_000 && lifetime <= 3601_000, `lifetime ${lifetime}`);
    // A new token works at once (DECISIONS §10).
    const patients = await new Api(app.server, response.body.token).get(`${t.base}/patients`);
    assert.equal(patients.status, 200);
  });

  test('a wrong secret or unknown key is 401 INVALID_CLIENT_CREDENTIALS, never a refresh code', async () => {
    const t = await createTestTenant(app);
    const wrong = await anonymous.post('/auth/token', { apiClient: t.adminClient.clientKey, secret: 'not-the-secret' });
    assert.equal(wrong.status, 401);
    assert.equal(errorCode(wrong), 'INVALID_CLIENT_CREDENTIALS');
    const unknown = await anonymous.post('/auth/token', { apiClient: 'no-such-key', secret: 'whatever' });
    assert.equal(unknown.status, 401);
    assert.equal(errorCode(unknown), 'INVALID_CLIENT_CREDENTIALS');
  });

  test('bad bodies are 400 with the field named', async () => {
    const missingSecret = await anonymous.post('/auth/token', { apiClient: 'x' });
    assert.equal(missingSecret.status, 400);
    assert.equal(errorCode(missingSecret), 'VALIDATION_ERROR');
    assert.equal(missingSecret.body[0].details.errors[0].path, 'body.secret');
    const wrongType = await anonymous.post('/auth/token', { apiClient: 5, secret: 'x' });
    assert.equal(wrongType.status, 400);
    const empty = await anonymous.post('/auth/token', {});
    assert.equal(empty.status, 400);
    const notJson = await anonymous.request('POST', '/auth/token', '{"apiClient":', { 'content-type': 'application/json' });
    assert.equal(notJson.status, 400);
    assert.equal(errorCode(notJson), 'MALFORMED_JSON');
  });

  test('the production route answers {clientName, token, enabled, expiresAt}', async () => {
    const t = await createTestTenant(app);
    const clientName = (
      await app.services.db.selectFrom('api_clients').select('name').where('id', '=', t.adminClient.id).executeTakeFirstOrThrow()
    ).name;
    const response = await anonymous.post(`/${t.tenant.name}/admin/api_clients/${clientName}`, { secret: t.adminClient.secret });
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body).sort(), ['clientName', 'enabled', 'expiresAt', 'token']);
    assert.equal(response.body.clientName, clientName);
    assert.equal(response.body.enabled, true);
    const wrong = await anonymous.post(`/${t.tenant.name}/admin/api_clients/${clientName}`, { secret: 'nope' });
    assert.equal(errorCode(wrong), 'INVALID_CLIENT_CREDENTIALS');
    const missing = await anonymous.post(`/${t.tenant.name}/admin/api_clients/${clientName}`, {});
    assert.equal(missing.status, 400);
  });

  test('the production route takes the client key in {clientName} (DECISIONS §4), as production clients send it', async () => {
    const t = await createTestTenant(app);
    const { clientKey, secret } = t.adminClient;
    const response = await anonymous.post(`/${t.tenant.name}/admin/api_clients/${clientKey}`, { secret });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.clientName, clientKey);
    assert.equal((await new Api(app.server, response.body.token).get(`${t.base}/patients`)).status, 200);
    // The key is unique across the server, but the path still names the tenant: another tenant's path does not find it.
    const other = await createTestTenant(app);
    const elsewhere = await anonymous.post(`/${other.tenant.name}/admin/api_clients/${clientKey}`, { secret });
    assert.equal(errorCode(elsewhere), 'INVALID_CLIENT_CREDENTIALS');
  });

  test('a user with passwordAccess signs in with tenantName, username and password', async () => {
    const t = await createTestTenant(app);
    const user = await t.api.post(`${t.admin}/users`, {
      username: 'nurse.joy',
      email: 'joy@example.org',
      firstName: 'Joy',
      lastName: 'Nurse',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
    });
    assert.equal(user.status, 201);
    const noPassword = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'nurse.joy',
      password: 'whatever-it-is',
    });
    assert.equal(errorCode(noPassword), 'INVALID_USER_CREDENTIALS');
    const set = await t.api.put(`${t.admin}/users/nurse.joy/password`, { password: 'correct horse battery' });
    assert.equal(set.status, 200);
    assert.equal(set.text, '');
    const login = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'Nurse.Joy',
      password: 'correct horse battery',
    });
    assert.equal(login.status, 200);
    const asUser = new Api(app.server, login.body.token);
    assert.equal((await asUser.get(`${t.base}/patients`)).status, 200);
    // The user's role grants PATIENT_READ only.
    assert.equal(errorCode(await asUser.post(`${t.base}/patients`, { firstName: 'A', lastName: 'B' })), 'ACCESS_DENIED');

    const wrong = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'nurse.joy',
      password: 'wrong password!',
    });
    assert.equal(errorCode(wrong), 'INVALID_USER_CREDENTIALS');
    await t.api.patch(`${t.admin}/users/nurse.joy`, { passwordAccess: false });
    const closed = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'nurse.joy',
      password: 'correct horse battery',
    });
    assert.equal(errorCode(closed), 'INVALID_USER_CREDENTIALS');
    const incomplete = await anonymous.post('/auth/token', { tenantName: t.tenant.name, username: 'nurse.joy' });
    assert.equal(incomplete.status, 400);
  });
});

describe('bearer tokens', () => {
  test('no token, a malformed one or a forged one is 401 NOT_VALID_JSON_WEB_TOKEN', async () => {
    const t = await createTestTenant(app);
    for (const authorization of [undefined, 'Bearer', 'Bearer abc.def.ghi', 'Basic xyz']) {
      const response = await app.server.inject({
        method: 'GET',
        url: `${t.base}/patients`,
        headers: authorization ? { authorization } : {},
      });
      assert.equal(response.statusCode, 401, String(authorization));
      assert.equal(JSON.parse(response.body)[0].errorCode, 'NOT_VALID_JSON_WEB_TOKEN');
    }
    const forged = await new SignJWT({ tid: t.tenant.id, typ: 'API_CLIENT', nam: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(t.adminClient.id)
      .setIssuer('cairn')
      .setAudience('cairn-api')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('some-other-key-some-other-key-123'));
    assert.equal(errorCode(await new Api(app.server, forged).get(`${t.base}/patients`)), 'NOT_VALID_JSON_WEB_TOKEN');
  });

  test('an expired token is 401 TOKEN_EXPIRED', async () => {
    const t = await createTestTenant(app);
    const expired = await new SignJWT({ tid: t.tenant.id, typ: 'API_CLIENT', nam: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(t.adminClient.id)
      .setIssuer('cairn')
      .setAudience('cairn-api')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(jwtSecret));
    const response = await new Api(app.server, expired).get(`${t.base}/patients`);
    assert.equal(response.status, 401);
    assert.equal(errorCode(response), 'TOKEN_EXPIRED');
  });

  test('a token is good only for its own tenant and for instances its caller may use', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const otherTenant = await a.api.get(`${b.base}/patients`);
    assert.equal(otherTenant.status, 403);
    assert.equal(errorCode(otherTenant), 'TENANT_ACCESS_DENIED');
    assert.equal((await a.api.get(`${b.admin}/users`)).status, 403);

    await newInstance(app, a.tenant, 'live');
    const noAccess = await a.api.get(`/${a.tenant.name}/live/patients`);
    assert.equal(noAccess.status, 403);
    assert.equal(errorCode(noAccess), 'INSTANCE_ACCESS_DENIED');

    const unknownTenant = await a.api.get('/no-such-tenant/sandbox/patients');
    assert.equal(unknownTenant.status, 404);
    assert.equal(errorCode(unknownTenant), 'TENANT_NOT_FOUND');
    const unknownInstance = await a.api.get(`/${a.tenant.name}/nowhere/patients`);
    assert.equal(unknownInstance.status, 404);
    assert.equal(errorCode(unknownInstance), 'INSTANCE_NOT_FOUND');
  });

  test("a disabled client's token stops working and it cannot get another", async () => {
    const t = await createTestTenant(app);
    const client = await t.clientWithRole('admin');
    const api = new Api(app.server, client.token);
    assert.equal((await api.get(`${t.base}/patients`)).status, 200);
    await app.services.db.updateTable('api_clients').set({ enabled: false }).where('id', '=', client.id).execute();
    await app.services.forgetCaches();
    assert.equal(errorCode(await api.get(`${t.base}/patients`)), 'NOT_VALID_JSON_WEB_TOKEN');
    const again = await anonymous.post('/auth/token', { apiClient: client.clientKey, secret: client.secret });
    assert.equal(errorCode(again), 'INVALID_CLIENT_CREDENTIALS');
  });

  test('a missing permission is 403 ACCESS_DENIED naming it', async () => {
    const t = await createTestTenant(app);
    const nothing = new Api(app.server, (await t.clientWithRole('nothing')).token);
    const response = await nothing.get(`${t.base}/patients`);
    assert.equal(response.status, 403);
    assert.equal(errorCode(response), 'ACCESS_DENIED');
    assert.equal(response.body[0].details.permission, 'PATIENT_READ');
    assert.equal(response.body[0].componentType, 'AUTH');
  });
});
