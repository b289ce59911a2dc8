import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { systemContext } from '../../http/context.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createTestTenant,
  isoMillis,
  metaInfoKeys,
  newInstance,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';
import { startReceiver } from '../../test/receiver.ts';
import { applyFormation } from '../formation/index.ts';

/** Webhook receivers listen on loopback, which webhooks reach only when private addresses are allowed. */
const app = await startApp({}, { env: { CAIRN_WEBHOOKS_ALLOW_PRIVATE: 'true' } });

interface MadeClient {
  id: string;
  name: string;
  clientKey: string;
  secret: string;
  enabled: boolean;
  roles: { permissionName: string; instanceName: string }[];
}

/** A client made over the API (201), holding `patient-reader` in sandbox unless the body says otherwise. */
async function createClient(t: TestTenant, body: Record<string, unknown> = {}, api: Api = t.api): Promise<MadeClient> {
  const response = await api.post(`${t.admin}/api-clients`, {
    name: `client-${randomUUID().slice(0, 8)}`,
    roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** POST /auth/token with a client's key and a secret. */
function signIn(t: TestTenant, clientKey: string, secret: string): Promise<Response<any>> {
  return t.anonymous.post('/auth/token', { apiClient: clientKey, secret });
}

/** The client's API, with a token got at /auth/token as an integrator would. */
async function signedIn(t: TestTenant, client: { clientKey: string; secret: string }): Promise<Api> {
  const response = await signIn(t, client.clientKey, client.secret);
  assert.equal(response.status, 200, response.text);
  return new Api(app.server, response.body.token);
}

const names = (response: Response<any>): string[] => response.body.data.map((client: { name: string }) => client.name);

describe('API clients', () => {
  test('create answers the secret once, which signs in; get and list never show it nor its hash', async () => {
    const t = await createTestTenant(app);
    const created = await t.api.post(`${t.admin}/api-clients`, {
      name: 'console-reader',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
    });
    assert.equal(created.status, 201, created.text);
    const { secret, ...client } = created.body;
    assert.deepEqual(Object.keys(created.body).sort(), [
      'clientKey',
      'createdAt',
      'enabled',
      'id',
      'jwks',
      'name',
      'roles',
      'secret',
      'updatedAt',
    ]);
    assert.ok(secret.length >= 32);
    assert.equal(client.name, 'console-reader');
    assert.equal(client.enabled, true);
    assert.match(client.createdAt, isoMillis);
    assert.deepEqual(
      client.roles.map((role: Record<string, unknown>) => [role.permissionName, role.instanceName, role.type]),
      [['patient-reader', 'sandbox', 'SECURITY_ROLE']],
    );

    // The secret signs in at both token routes, and the client may do what its role grants, only that.
    const api = await signedIn(t, { clientKey: client.clientKey, secret });
    assert.equal((await api.get(`${t.base}/patients`)).status, 200);
    assertCode(await api.get(`${t.admin}/api-clients`), 403, 'ACCESS_DENIED');
    const production = await t.anonymous.post(`${t.admin}/api_clients/${client.clientKey}`, { secret });
    assert.equal(production.status, 200, production.text);

    const read = await t.api.get(`${t.admin}/api-clients/${client.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, client);
    const list = await t.api.get(`${t.admin}/api-clients?name=console`);
    assert.deepEqual(Object.keys(list.body.metaInfo).sort(), metaInfoKeys);
    assert.deepEqual(list.body.data, [client]);
    for (const answer of [read, list]) {
      assert.ok(!answer.text.includes(secret), 'the secret is shown once');
      assert.ok(!answer.text.includes('scrypt'), "the secret's hash is never shown");
    }
    assert.deepEqual(
      (await auditOf(t, { entityType: 'API_CLIENT' })).map((entry) => [entry.action, entry.entityId]),
      [['API_CLIENT_CREATED', client.id]],
    );
  });

  test('the answers holding a secret ignore Idempotency-Key, so no kept answer holds one', async () => {
    const t = await createTestTenant(app);
    const url = `${t.admin}/api-clients`;
    const body = { name: 'keyed', roles: [] };
    const headers = { 'idempotency-key': randomUUID() };
    const created = await t.api.request('POST', url, body, headers);
    assert.equal(created.status, 201, created.text);
    // A repeat is not a replay: it runs, and meets the name taken.
    const again = await t.api.request('POST', url, body, headers);
    assertCode(again, 409, 'DUPLICATE_VALUE');
    assert.equal(again.headers['idempotent-replayed'], undefined);
    const rotated = await t.api.request('POST', `${url}/${created.body.id}/secret`, {}, headers);
    assert.equal(rotated.status, 200, rotated.text);
    const keys = await app.services.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('tenant_id', '=', t.tenant.id)
      .execute();
    assert.deepEqual(keys, []);
    // The other writes take one as everywhere.
    const patched = await t.api.request('PATCH', `${url}/${created.body.id}`, { enabled: true }, headers);
    assert.equal(patched.status, 200, patched.text);
    assert.equal(
      (await t.api.request('PATCH', `${url}/${created.body.id}`, { enabled: true }, headers)).headers['idempotent-replayed'],
      'true',
    );
    // The docs list the header on the writes that take it only.
    const paths = (await t.anonymous.get('/openapi.json')).body.paths;
    const header = (operation: { parameters?: { name: string }[] }) =>
      (operation.parameters ?? []).some((parameter) => parameter.name === 'Idempotency-Key');
    assert.equal(header(paths['/{tenantName}/admin/api-clients'].post), false);
    assert.equal(header(paths['/{tenantName}/admin/api-clients/{clientId}/secret'].post), false);
    assert.equal(header(paths['/{tenantName}/admin/api-clients/{clientId}'].patch), true);
  });

  test('the list pages as the other admin lists do, by name, filtered by part of the name, enabled and role', async () => {
    const t = await createTestTenant(app);
    for (const name of ['alpha-one', 'Beta-two', 'gamma']) await createClient(t, { name });
    const gamma = (await t.api.get(`${t.admin}/api-clients?name=gamma`)).body.data[0];
    assert.equal((await t.api.patch(`${t.admin}/api-clients/${gamma.id}`, { enabled: false })).status, 200);

    // The harness's admin client (`client-…`) is one of the tenant's clients too.
    const all = await t.api.get(`${t.admin}/api-clients`);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(names(all), ['Beta-two', 'alpha-one', t.adminClient.name, 'gamma']);
    const page = await t.api.get(`${t.admin}/api-clients?size=3&page=1`);
    assert.deepEqual(names(page), ['gamma']);
    assert.deepEqual(page.body.metaInfo, {
      page: 1,
      pageSize: 3,
      totalElements: 4,
      numberOfElements: 1,
      totalPages: 2,
      firstPage: false,
      lastPage: true,
    });
    assert.deepEqual(names(await t.api.get(`${t.admin}/api-clients?sort=name,desc&size=2`)), ['gamma', t.adminClient.name]);
    assert.deepEqual(names(await t.api.get(`${t.admin}/api-clients?name=A-T`)), ['Beta-two']);
    assert.deepEqual(names(await t.api.get(`${t.admin}/api-clients?name=_`)), []);
    assert.deepEqual(names(await t.api.get(`${t.admin}/api-clients?enabled=false`)), ['gamma']);
    assert.deepEqual(names(await t.api.get(`${t.admin}/api-clients?roleName=admin`)), [t.adminClient.name]);
    assertCode(await t.api.get(`${t.admin}/api-clients?sort=secret`), 400, 'INVALID_SORT');
  });

  test('rotating the secret: the new one answered once signs in, the old one no more; tokens got before stay', async () => {
    const t = await createTestTenant(app);
    const client = await createClient(t);
    const before = await signedIn(t, client);

    const rotated = await t.api.post(`${t.admin}/api-clients/${client.id}/secret`);
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, client.secret);
    assert.equal(rotated.body.clientKey, client.clientKey);
    assertCode(await signIn(t, client.clientKey, client.secret), 401, 'INVALID_CLIENT_CREDENTIALS');
    assertCode(
      await t.anonymous.post(`${t.admin}/api_clients/${client.clientKey}`, { secret: client.secret }),
      401,
      'INVALID_CLIENT_CREDENTIALS',
    );
    const after = await signedIn(t, { clientKey: client.clientKey, secret: rotated.body.secret });
    assert.equal((await after.get(`${t.base}/patients`)).status, 200);
    // A token is good for its hour: disabling the client is what ends it at once (below).
    assert.equal((await before.get(`${t.base}/patients`)).status, 200);

    const read = await t.api.get(`${t.admin}/api-clients/${client.id}`);
    assert.ok(!read.text.includes(rotated.body.secret));
    assert.deepEqual(
      (await auditOf(t, { entityId: client.id })).map((entry) => entry.action),
      ['API_CLIENT_SECRET_ROTATED', 'API_CLIENT_CREATED'],
    );
  });

  test('disabling ends its tokens at once and refuses new ones; enabling lets it in again', async () => {
    const t = await createTestTenant(app);
    const client = await createClient(t);
    const api = await signedIn(t, client);
    assert.equal((await api.get(`${t.base}/patients`)).status, 200);

    const disabled = await t.api.patch(`${t.admin}/api-clients/${client.id}`, { enabled: false });
    assert.equal(disabled.status, 200, disabled.text);
    assert.equal(disabled.body.enabled, false);
    assertCode(await api.get(`${t.base}/patients`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await signIn(t, client.clientKey, client.secret), 401, 'INVALID_CLIENT_CREDENTIALS');

    assert.equal((await t.api.patch(`${t.admin}/api-clients/${client.id}`, { enabled: true })).status, 200);
    assert.equal((await api.get(`${t.base}/patients`)).status, 200);
    assert.equal((await signIn(t, client.clientKey, client.secret)).status, 200);
    const entries = await auditOf(t, { entityId: client.id, action: 'API_CLIENT_UPDATED' });
    assert.deepEqual(
      entries.map((entry) => entry.changedFields),
      [['enabled'], ['enabled']],
    );
  });

  test('roles are replaced per instance, each checked against its formation; a rename keeps the key', async () => {
    const t = await createTestTenant(app);
    const other = await newInstance(app, t.tenant, 'other');
    await applyFormation(systemContext(app.services, t.tenant, other), testFormation());
    const client = await createClient(t);
    const api = await signedIn(t, client);

    const patched = await t.api.patch(`${t.admin}/api-clients/${client.id}`, {
      name: 'renamed',
      roles: [
        { permissionName: 'patient-reader', instanceName: 'other' },
        { permissionName: 'nothing', instanceName: 'sandbox' },
      ],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.name, 'renamed');
    assert.equal(patched.body.clientKey, client.clientKey);
    assert.deepEqual(
      patched.body.roles.map(
        (role: { permissionName: string; instanceName: string }) => `${role.instanceName}:${role.permissionName}`,
      ),
      ['other:patient-reader', 'sandbox:nothing'],
    );
    // Its token follows its roles at once.
    assert.equal((await api.get(`/${t.tenant.name}/other/patients`)).status, 200);
    assertCode(await api.get(`${t.base}/patients`), 403, 'ACCESS_DENIED');
    // The production token route takes the new name (or the key).
    assert.equal((await t.anonymous.post(`${t.admin}/api_clients/renamed`, { secret: client.secret })).status, 200);

    const unchanged = await t.api.patch(`${t.admin}/api-clients/${client.id}`, {});
    assert.deepEqual(unchanged.body, patched.body);
    const [entry, ...rest] = await auditOf(t, { entityId: client.id, action: 'API_CLIENT_UPDATED' });
    assert.deepEqual(entry?.changedFields, ['name', 'roles']);
    assert.equal(rest.length, 0, 'an empty change writes nothing');

    // Clients send back what they read: read-only keys change nothing.
    const sentBack = await t.api.patch(`${t.admin}/api-clients/${client.id}`, { ...patched.body, enabled: true });
    assert.equal(sentBack.status, 200, sentBack.text);
    assert.deepEqual(sentBack.body.roles.length, 2);

    const taken = await createClient(t);
    assertCode(await t.api.patch(`${t.admin}/api-clients/${client.id}`, { name: taken.name }), 409, 'DUPLICATE_VALUE');
    assertCode(await t.api.post(`${t.admin}/api-clients`, { name: 'renamed', roles: [] }), 409, 'DUPLICATE_VALUE');
  });

  test('400 for bad input, naming the field', async () => {
    const t = await createTestTenant(app);
    const client = await createClient(t);
    const url = `${t.admin}/api-clients`;
    assertValidation(await t.api.post(url, { roles: [] }), 'body.name');
    assertValidation(await t.api.post(url, { name: 'has space', roles: [] }), 'body.name');
    assertValidation(await t.api.post(url, { name: '.dot-first', roles: [] }), 'body.name');
    assertValidation(await t.api.post(url, { name: 'x'.repeat(101), roles: [] }), 'body.name');
    assertValidation(await t.api.post(url, { name: 'no-roles' }), 'body.roles');
    assertValidation(await t.api.post(url, { name: 'a', roles: [{ permissionName: 'admin' }] }), 'body.roles.0.instanceName');
    assertValidation(
      await t.api.post(url, { name: 'a', roles: [{ permissionName: 'emperor', instanceName: 'sandbox' }] }),
      'body.roles.0.permissionName',
    );
    assertValidation(
      await t.api.post(url, { name: 'a', roles: [{ permissionName: 'admin', instanceName: 'nowhere' }] }),
      'body.roles.0.instanceName',
    );
    assertValidation(await t.api.patch(`${url}/${client.id}`, { enabled: 'no' }), 'body.enabled');
    assertValidation(await t.api.patch(`${url}/${client.id}`, { roles: null }), 'body.roles');
    assertValidation(await t.api.get(`${url}/not-a-uuid`), 'params.clientId');
    assertValidation(await t.api.get(`${url}?size=0`), 'querystring.size');
    assertValidation(await t.api.get(`${url}?enabled=maybe`), 'querystring.enabled');
    // Nothing of the refused writes was kept.
    assert.deepEqual(names(await t.api.get(url)).sort(), [client.name, t.adminClient.name].sort());
  });

  test('401 without a token, 403 without the permission, 404 for a client that is not there', async () => {
    const t = await createTestTenant(app);
    const client = await createClient(t);
    const url = `${t.admin}/api-clients`;
    assertCode(await t.anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.post(url, { name: 'a', roles: [] }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.post(`${url}/${client.id}/secret`), 401, 'NOT_VALID_JSON_WEB_TOKEN');

    const reader = await t.apiWith(['API_CLIENT_READ']);
    assert.equal((await reader.get(url)).status, 200);
    assert.equal((await reader.get(`${url}/${client.id}`)).status, 200);
    for (const denied of [
      await reader.post(url, { name: 'a', roles: [] }),
      await reader.patch(`${url}/${client.id}`, { enabled: false }),
      await reader.post(`${url}/${client.id}/secret`),
    ]) {
      assertCode(denied, 403, 'ACCESS_DENIED');
      assert.match(denied.body[0].message, /API_CLIENT_WRITE/);
    }
    const patientReader = await t.apiWith(['PATIENT_READ']);
    assertCode(await patientReader.get(url), 403, 'ACCESS_DENIED');
    assertCode(await patientReader.get(`${url}/${client.id}`), 403, 'ACCESS_DENIED');

    const missing = randomUUID();
    assertCode(await t.api.get(`${url}/${missing}`), 404, 'API_CLIENT_NOT_FOUND');
    assertCode(await t.api.patch(`${url}/${missing}`, { enabled: false }), 404, 'API_CLIENT_NOT_FOUND');
    assertCode(await t.api.post(`${url}/${missing}/secret`), 404, 'API_CLIENT_NOT_FOUND');
  });

  test("a tenant neither sees nor changes another tenant's clients", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const theirs = await createClient(b, { name: 'b-client' });

    assert.ok(!names(await a.api.get(`${a.admin}/api-clients`)).includes('b-client'));
    assertCode(await a.api.get(`${a.admin}/api-clients/${theirs.id}`), 404, 'API_CLIENT_NOT_FOUND');
    assertCode(await a.api.patch(`${a.admin}/api-clients/${theirs.id}`, { enabled: false }), 404, 'API_CLIENT_NOT_FOUND');
    assertCode(await a.api.post(`${a.admin}/api-clients/${theirs.id}/secret`), 404, 'API_CLIENT_NOT_FOUND');
    assertCode(await a.api.get(`${b.admin}/api-clients`), 403, 'TENANT_ACCESS_DENIED');
    assertCode(await a.api.patch(`${b.admin}/api-clients/${theirs.id}`, { enabled: false }), 403, 'TENANT_ACCESS_DENIED');
    // Names are the tenant's own: A may have a `b-client` of its own.
    assert.equal((await a.api.post(`${a.admin}/api-clients`, { name: 'b-client', roles: [] })).status, 201);

    const read = await b.api.get(`${b.admin}/api-clients/${theirs.id}`);
    assert.equal(read.body.enabled, true);
    assert.equal((await signIn(b, theirs.clientKey, theirs.secret)).status, 200, "B's secret still signs in");
  });

  test('a client may not disable itself or give up API_CLIENT_WRITE; another administrator may do either', async () => {
    const t = await createTestTenant(app);
    const own = `${t.admin}/api-clients/${t.adminClient.id}`;
    const disabling = await t.api.patch(own, { enabled: false });
    assertCode(disabling, 409, 'API_CLIENT_LOCK_OUT');
    assert.equal(disabling.body[0].details.field, 'enabled');
    for (const roles of [[], [{ permissionName: 'patient-reader', instanceName: 'sandbox' }]]) {
      const demoting = await t.api.patch(own, { roles });
      assertCode(demoting, 409, 'API_CLIENT_LOCK_OUT', JSON.stringify(roles));
      assert.equal(demoting.body[0].details.field, 'roles');
    }
    const ownRead = await t.api.get(own);
    assert.equal(ownRead.body.enabled, true);
    assert.deepEqual(
      ownRead.body.roles.map((role: { permissionName: string }) => role.permissionName),
      ['admin'],
    );

    // What keeps API_CLIENT_WRITE is allowed, and so is a new secret (its token stays good).
    const kept = await t.api.patch(own, {
      enabled: true,
      roles: [
        { permissionName: 'admin', instanceName: 'sandbox' },
        { permissionName: 'patient-reader', instanceName: 'sandbox' },
      ],
    });
    assert.equal(kept.status, 200, kept.text);
    assert.equal((await t.api.post(`${own}/secret`)).status, 200);
    assert.equal((await t.api.get(`${t.admin}/api-clients`)).status, 200);

    // Another administrator is the way back, so it may lock this one out.
    const second = await t.clientWithRole('admin');
    const secondApi = new Api(app.server, second.token);
    assert.equal((await secondApi.patch(own, { roles: [{ permissionName: 'nothing', instanceName: 'sandbox' }] })).status, 200);
    assertCode(await t.api.get(`${t.admin}/api-clients`), 403, 'ACCESS_DENIED');
    assert.equal((await secondApi.patch(own, { enabled: false })).status, 200);
    assertCode(await t.api.get(`${t.base}/patients`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
  });

  test('every write is audited and an API_CLIENT event webhooks receive, naming fields, never a secret', async () => {
    const t = await createTestTenant(app);
    const receiver = await startReceiver();
    const hook = await t.api.post(`${t.admin}/webhooks`, {
      name: 'clients',
      url: `${receiver.url}/hook`,
      eventEntities: ['API_CLIENT'],
    });
    assert.equal(hook.status, 201, hook.text);
    const client = await createClient(t);
    await t.api.patch(`${t.admin}/api-clients/${client.id}`, { enabled: false, roles: [] });
    const rotated = await t.api.post(`${t.admin}/api-clients/${client.id}/secret`);
    await app.jobs.drain();

    const events = receiver.received.map((request) => request.json);
    assert.deepEqual(
      events.map((event) => [event.type, event.recordId, event.details]),
      [
        ['API_CLIENT_CREATED', client.id, {}],
        ['API_CLIENT_UPDATED', client.id, { changedFields: ['enabled', 'roles'] }],
        ['API_CLIENT_UPDATED', client.id, {}],
      ],
    );
    for (const request of receiver.received) {
      assert.ok(!request.body.includes(client.secret) && !request.body.includes(rotated.body.secret));
      assert.ok(!request.body.includes('scrypt'));
    }
    assert.deepEqual(
      (await auditOf(t, { entityType: 'API_CLIENT' })).map((entry) => entry.action),
      ['API_CLIENT_SECRET_ROTATED', 'API_CLIENT_UPDATED', 'API_CLIENT_CREATED'],
    );
  });
});
