import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { systemContext } from '../../http/context.ts';
import {
  Api,
  createTestTenant,
  errorCode,
  metaInfoKeys,
  newInstance,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';
import { applyFormation } from '../formation/operations.ts';

const app = await startApp();
const anonymous = new Api(app.server, undefined);

const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const eventKeys = [
  'action',
  'actorId',
  'actorName',
  'actorType',
  'changedFields',
  'entityId',
  'entityType',
  'id',
  'instanceId',
  'instanceName',
  'method',
  'occurredAt',
  'patientId',
  'requestId',
  'route',
];

interface AuditEvent {
  id: string;
  occurredAt: string;
  instanceId: string | null;
  instanceName: string | null;
  actorType: string;
  actorId: string | null;
  actorName: string | null;
  action: string;
  entityType: string;
  entityId: string | null;
  patientId: string | null;
  requestId: string | null;
  method: string | null;
  route: string | null;
  changedFields: string[] | null;
}

/** PHI a patient is created with, and changed to; none of it may reach the audit log. */
const phi = {
  firstName: 'Zebulon',
  lastName: 'Quartermaine',
  phone: '+14155550199',
  email: 'zebulon.quartermaine@example.org',
  city: 'Xanadutown',
};
const changed = { lastName: 'Featherstonehaugh', phone: '+14155550177', notes: 'Allergic to penicillin' };

async function audit(t: TestTenant, query = '', api: Api = t.api): Promise<Response<{ data: AuditEvent[]; metaInfo: any }>> {
  const response = await api.get(`${t.admin}/audit-data${query ? `?${query}` : ''}`);
  assert.equal(response.status, 200, response.text);
  return response;
}

async function events(t: TestTenant, query = ''): Promise<AuditEvent[]> {
  return (await audit(t, `size=1000${query ? `&${query}` : ''}`)).body.data;
}

async function createPatient(t: TestTenant, body: Record<string, unknown> = phi, api: Api = t.api) {
  const response = await api.post(`${t.base}/patients`, body);
  assert.equal(response.status, 201, response.text);
  return { id: response.body.id as string, requestId: response.headers['x-request-id'] as string };
}

function assertError(response: Response<any>, status: number, code: string) {
  assert.equal(response.status, status, response.text);
  assert.ok(Array.isArray(response.body));
  assert.equal(errorCode(response), code, response.text);
}

describe('GET /{tenant}/admin/audit-data', () => {
  test('answers data and meta, newest first', async () => {
    const t = await createTestTenant(app);
    const response = await audit(t);
    assert.deepEqual(Object.keys(response.body).sort(), ['data', 'metaInfo']);
    assert.deepEqual(Object.keys(response.body.metaInfo).sort(), metaInfoKeys);
    assert.equal(response.headers['cache-control'], 'no-store');
    const { data, metaInfo } = response.body;
    // The test tenant's formation was applied by the CLI's SYSTEM actor.
    assert.ok(data.length >= 2);
    for (const event of data) {
      assert.deepEqual(Object.keys(event).sort(), eventKeys);
      assert.match(event.occurredAt, UTC);
    }
    assert.deepEqual(metaInfo, {
      page: 0,
      pageSize: 20,
      totalElements: data.length,
      numberOfElements: data.length,
      totalPages: 1,
      firstPage: true,
      lastPage: true,
    });
    const published = data.find((event) => event.action === 'FORMATION_PUBLISHED');
    assert.ok(published);
    assert.equal(published.actorType, 'SYSTEM');
    assert.equal(published.actorId, null);
    assert.equal(published.actorName, 'SYSTEM:cli');
    assert.equal(published.entityType, 'FORMATION');
    assert.equal(published.entityId, '1');
    assert.equal(published.instanceId, t.instance.id);
    assert.equal(published.instanceName, 'sandbox');
    assert.equal(published.requestId, null);

    const first = await createPatient(t);
    const second = await createPatient(t, { firstName: 'Second', lastName: 'Patient' });
    const third = await createPatient(t, { firstName: 'Third', lastName: 'Patient' });
    const newest = (await audit(t)).body.data;
    assert.deepEqual(
      newest.slice(0, 3).map((event) => event.entityId),
      [third.id, second.id, first.id],
    );
    for (let i = 1; i < newest.length; i += 1) {
      assert.ok(newest[i - 1]!.occurredAt >= newest[i]!.occurredAt, 'occurredAt never increases down the list');
    }
  });

  test('records each write with its actor, request, route and changed field names', async () => {
    const t = await createTestTenant(app);
    const name = `API_CLIENT:${t.adminClient.name}`;
    const created = await createPatient(t);

    const patch = await t.api.patch(`${t.base}/patients/${created.id}`, changed);
    assert.equal(patch.status, 200, patch.text);
    const deleted = await t.api.delete(`${t.base}/patients/${created.id}`);
    assert.equal(deleted.status, 200, deleted.text);

    const trail = await events(t, `patientId=${created.id}`);
    assert.deepEqual(
      trail.map((event) => event.action),
      ['PATIENT_DELETED', 'PATIENT_UPDATED', 'PATIENT_CREATED'],
    );
    const [del, upd, cre] = trail as [AuditEvent, AuditEvent, AuditEvent];
    for (const event of trail) {
      assert.equal(event.actorType, 'API_CLIENT');
      assert.equal(event.actorId, t.adminClient.id);
      assert.equal(event.actorName, name);
      assert.equal(event.entityType, 'PATIENT');
      assert.equal(event.entityId, created.id);
      assert.equal(event.patientId, created.id);
      assert.equal(event.instanceId, t.instance.id);
      assert.equal(event.instanceName, 'sandbox');
    }
    assert.equal(cre.method, 'POST');
    assert.equal(cre.route, '/:tenantName/:instanceName/patients');
    assert.equal(cre.requestId, created.requestId);
    assert.equal(upd.method, 'PATCH');
    assert.equal(upd.route, '/:tenantName/:instanceName/patients/:patientId');
    assert.equal(upd.requestId, patch.headers['x-request-id']);
    assert.deepEqual([...(upd.changedFields ?? [])].sort(), ['lastName', 'notes', 'phone']);
    assert.equal(del.method, 'DELETE');
    assert.equal(del.route, '/:tenantName/:instanceName/patients/:patientId');
    assert.equal(del.requestId, deleted.headers['x-request-id']);
    // Three requests, three request ids.
    assert.equal(new Set(trail.map((event) => event.requestId)).size, 3);
  });

  test('holds field names only, never a value', async () => {
    const t = await createTestTenant(app);
    const created = await createPatient(t);
    assert.equal((await t.api.patch(`${t.base}/patients/${created.id}`, changed)).status, 200);
    const response = await t.api.get(`${t.admin}/audit-data?size=1000`);
    assert.equal(response.status, 200);
    assert.ok(response.body.data.some((event: AuditEvent) => event.action === 'PATIENT_UPDATED'));
    for (const value of [...Object.values(phi), ...Object.values(changed), '4155550199', '4155550177']) {
      assert.equal(response.text.includes(value), false, `the audit log shows "${value}"`);
    }
    for (const event of response.body.data as AuditEvent[]) {
      for (const field of event.changedFields ?? []) assert.match(field, /^[A-Za-z][A-Za-z0-9_-]*$/);
    }
  });

  test('records formation writes', async () => {
    const t = await createTestTenant(app);
    const name = `API_CLIENT:${t.adminClient.name}`;
    const put = await t.api.put(`${t.base}/formations/draft`, testFormation());
    assert.equal(put.status, 200);
    const publish = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(publish.status, 200);
    const formationEvents = await events(t, 'entityType=FORMATION&actorType=API_CLIENT');
    assert.deepEqual(
      formationEvents.map((event) => [event.action, event.entityId]),
      [
        ['FORMATION_PUBLISHED', '2'],
        ['FORMATION_DRAFT_SAVED', '-1'],
      ],
    );
    const [published, saved] = formationEvents as [AuditEvent, AuditEvent];
    assert.equal(published.actorName, name);
    assert.equal(published.method, 'POST');
    assert.equal(published.route, '/:tenantName/:instanceName/formations/draft/publish');
    assert.equal(published.requestId, publish.headers['x-request-id']);
    assert.equal(published.patientId, null);
    assert.equal(saved.method, 'PUT');
    assert.equal(saved.route, '/:tenantName/:instanceName/formations/draft');
    assert.equal(saved.instanceName, 'sandbox');
  });

  test('a write that fails leaves no audit record', async () => {
    const t = await createTestTenant(app);
    const before = (await audit(t)).body.metaInfo.totalElements;
    assert.equal((await t.api.post(`${t.base}/patients`, { firstName: 'No last name' })).status, 400);
    assert.equal((await t.api.put(`${t.base}/formations/draft`, { territories: 'west' })).status, 400);
    const broken = testFormation({ roles: [{ name: 'broken', policies: ['missing'] }] });
    assert.equal((await t.api.put(`${t.base}/formations/draft`, broken)).status, 200);
    const publish = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(errorCode(publish), 'FORMATION_INVALID');
    const after = await events(t);
    assert.equal(after.length, before + 1);
    assert.equal(after[0]!.action, 'FORMATION_DRAFT_SAVED');
    assert.equal(after.filter((event) => event.action === 'FORMATION_PUBLISHED').length, 1);
    // Reading is not a write: the audit read itself added nothing.
    assert.equal((await events(t)).length, after.length);
  });

  test('records a user caller as USER', async () => {
    const t = await createTestTenant(app);
    const user = await t.api.post(`${t.admin}/users`, {
      username: 'audit.nurse',
      email: 'audit.nurse@example.org',
      firstName: 'Audit',
      lastName: 'Nurse',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    });
    assert.equal(user.status, 201, user.text);
    assert.equal((await t.api.put(`${t.admin}/users/audit.nurse/password`, { password: 'correct horse battery' })).status, 200);
    const login = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'audit.nurse',
      password: 'correct horse battery',
    });
    assert.equal(login.status, 200, login.text);
    const asUser = new Api(app.server, login.body.token);
    const patient = await createPatient(t, { firstName: 'By', lastName: 'User' }, asUser);
    const byUser = await events(t, 'actorType=USER');
    assert.equal(byUser.length, 1);
    assert.equal(byUser[0]!.action, 'PATIENT_CREATED');
    assert.equal(byUser[0]!.actorId, user.body.id);
    assert.equal(byUser[0]!.entityId, patient.id);
    assert.equal(typeof byUser[0]!.actorName, 'string');
    assert.deepEqual(await events(t, `actorId=${user.body.id}`), byUser);
    // The user's creation is a tenant-level event: no instance.
    const created = (await events(t, `entityId=${user.body.id}&action=USER_CREATED`))[0];
    assert.ok(created);
    assert.equal(created.entityType, 'USER');
    assert.equal(created.instanceId, null);
    assert.equal(created.instanceName, null);
    assert.equal(created.actorType, 'API_CLIENT');
  });
});

describe('audit filters', () => {
  test('actorId, actorType, action, entityType, entityId and patientId each narrow the list', async () => {
    const t = await createTestTenant(app);
    const other = await t.clientWithRole('admin');
    const otherApi = new Api(app.server, other.token);
    const mine = await createPatient(t);
    const theirs = await createPatient(t, { firstName: 'Other', lastName: 'Client' }, otherApi);
    assert.equal((await otherApi.patch(`${t.base}/patients/${theirs.id}`, { lastName: 'Changed' })).status, 200);
    const all = await events(t);

    const check = async (query: string, keep: (event: AuditEvent) => boolean) => {
      const found = await events(t, query);
      assert.deepEqual(
        found.map((event) => event.id),
        all.filter(keep).map((event) => event.id),
        query,
      );
      assert.ok(found.length > 0, query);
      return found;
    };
    await check(`actorId=${other.id}`, (event) => event.actorId === other.id);
    await check(`actorId=${t.adminClient.id}`, (event) => event.actorId === t.adminClient.id);
    await check('actorType=SYSTEM', (event) => event.actorType === 'SYSTEM');
    await check('actorType=API_CLIENT', (event) => event.actorType === 'API_CLIENT');
    await check('action=PATIENT_CREATED', (event) => event.action === 'PATIENT_CREATED');
    await check('action=PATIENT_UPDATED', (event) => event.action === 'PATIENT_UPDATED');
    await check('entityType=PATIENT', (event) => event.entityType === 'PATIENT');
    await check('entityType=FORMATION', (event) => event.entityType === 'FORMATION');
    await check(`entityId=${mine.id}`, (event) => event.entityId === mine.id);
    await check('entityId=1', (event) => event.entityId === '1');
    await check(`patientId=${theirs.id}`, (event) => event.patientId === theirs.id);
    const both = await check(
      `actorId=${other.id}&action=PATIENT_UPDATED&patientId=${theirs.id}`,
      (event) => event.actorId === other.id && event.action === 'PATIENT_UPDATED' && event.patientId === theirs.id,
    );
    assert.equal(both.length, 1);

    // Filters that match nothing answer an empty page, not an error.
    const none = await audit(t, 'action=NO_SUCH_ACTION');
    assert.deepEqual(none.body.data, []);
    assert.equal(none.body.metaInfo.totalElements, 0);
    assert.equal(none.body.metaInfo.totalPages, 0);
    assert.equal(none.body.metaInfo.lastPage, true);
    assert.deepEqual((await audit(t, 'patientId=00000000-0000-4000-8000-000000000000')).body.data, []);
    assert.deepEqual((await audit(t, `actorType=USER`)).body.data, []);
    // Unknown query parameters are ignored (DECISIONS §10).
    assert.equal((await audit(t, 'size=1000&colour=blue')).body.data.length, all.length);
  });

  test('instanceName narrows to one instance', async () => {
    const t = await createTestTenant(app);
    const live = await newInstance(app, t.tenant, 'live');
    await applyFormation(systemContext(app.services, t.tenant, live), testFormation());
    const liveAdmin = await t.clientWithRole('admin', { ...live, currentFormationVersion: 1 });
    const liveApi = new Api(app.server, liveAdmin.token);
    const inLive = await liveApi.post(`/${t.tenant.name}/live/patients`, { firstName: 'Live', lastName: 'Patient' });
    assert.equal(inLive.status, 201, inLive.text);
    const inSandbox = await createPatient(t, { firstName: 'Sandbox', lastName: 'Patient' });

    const liveEvents = await events(t, 'instanceName=live');
    assert.ok(liveEvents.length >= 3);
    assert.ok(liveEvents.every((event) => event.instanceName === 'live' && event.instanceId === live.id));
    assert.ok(liveEvents.some((event) => event.entityId === inLive.body.id));
    const sandboxEvents = await events(t, 'instanceName=sandbox');
    assert.ok(sandboxEvents.every((event) => event.instanceName === 'sandbox'));
    assert.ok(sandboxEvents.some((event) => event.entityId === inSandbox.id));
    assert.ok(!sandboxEvents.some((event) => event.entityId === inLive.body.id));
    assert.deepEqual((await audit(t, 'instanceName=nowhere')).body.data, []);
    const liveCreated = await events(t, 'instanceName=live&action=PATIENT_CREATED');
    assert.deepEqual(
      liveCreated.map((event) => event.entityId),
      [inLive.body.id],
    );
  });

  test('from is inclusive and to exclusive', async () => {
    const t = await createTestTenant(app);
    for (const n of [1, 2, 3, 4]) await createPatient(t, { firstName: `P${n}`, lastName: 'Time' });
    const all = await events(t);
    const middle = all[2]!;
    const from = await events(t, `from=${encodeURIComponent(middle.occurredAt)}`);
    assert.ok(from.some((event) => event.id === middle.id));
    assert.ok(from.every((event) => event.occurredAt >= middle.occurredAt));
    assert.deepEqual(
      from.map((event) => event.id),
      all.filter((event) => event.occurredAt >= middle.occurredAt).map((event) => event.id),
    );
    const to = await events(t, `to=${encodeURIComponent(middle.occurredAt)}`);
    assert.ok(!to.some((event) => event.id === middle.id));
    assert.deepEqual(
      to.map((event) => event.id),
      all.filter((event) => event.occurredAt < middle.occurredAt).map((event) => event.id),
    );
    const oldest = all[all.length - 1]!;
    const newest = all[0]!;
    const between = await events(t, `from=${encodeURIComponent(oldest.occurredAt)}&to=${encodeURIComponent(newest.occurredAt)}`);
    assert.deepEqual(
      between.map((event) => event.id),
      all.filter((event) => event.occurredAt < newest.occurredAt).map((event) => event.id),
    );
    // Any ISO 8601 offset is accepted.
    assert.equal((await events(t, `from=${encodeURIComponent('2000-01-01T02:00:00+02:00')}`)).length, all.length);
    assert.deepEqual(await events(t, `to=${encodeURIComponent('2000-01-01T00:00:00Z')}`), []);
    assert.deepEqual(await events(t, `from=${encodeURIComponent('2999-01-01T00:00:00.000Z')}`), []);
  });

  test('bad filter values are 400 VALIDATION_ERROR naming the parameter', async () => {
    const t = await createTestTenant(app);
    const bad: [string, string][] = [
      ['patientId=not-a-uuid', 'querystring.patientId'],
      ['patientId=12345', 'querystring.patientId'],
      ['actorId=bob', 'querystring.actorId'],
      ['from=yesterday', 'querystring.from'],
      ['to=2024-13-45T00:00:00Z', 'querystring.to'],
      ['actorType=ROBOT', 'querystring.actorType'],
      ['page=-1', 'querystring.page'],
      ['page=abc', 'querystring.page'],
      ['size=0', 'querystring.size'],
      ['size=1001', 'querystring.size'],
      ['size=ten', 'querystring.size'],
    ];
    for (const [query, path] of bad) {
      const response = await t.api.get(`${t.admin}/audit-data?${query}`);
      assertError(response, 400, 'VALIDATION_ERROR');
      assert.ok(
        response.body[0].details.errors.some((error: { path: string }) => error.path.startsWith(path)),
        `${query}: ${response.text}`,
      );
    }
    for (const sort of ['action,asc', 'occurredAt,sideways', 'occurredAt,asc,extra', 'id']) {
      const response = await t.api.get(`${t.admin}/audit-data?sort=${encodeURIComponent(sort)}`);
      assertError(response, 400, 'INVALID_SORT');
      assert.deepEqual(response.body[0].details.sortableFields, ['occurredAt']);
    }
  });
});

describe('audit paging and sorting', () => {
  test('pages follow size and page, and cover every event once', async () => {
    const t = await createTestTenant(app);
    for (const n of [1, 2, 3, 4, 5]) await createPatient(t, { firstName: `P${n}`, lastName: 'Page' });
    const all = await events(t);
    const total = all.length;
    const size = 2;
    const pages = Math.ceil(total / size);
    const seen: string[] = [];
    for (let page = 0; page < pages; page += 1) {
      const response = await audit(t, `page=${page}&size=${size}`);
      const { data, metaInfo } = response.body;
      assert.deepEqual(metaInfo, {
        page,
        pageSize: size,
        totalElements: total,
        numberOfElements: data.length,
        totalPages: pages,
        firstPage: page === 0,
        lastPage: page === pages - 1,
      });
      seen.push(...data.map((event) => event.id));
    }
    assert.deepEqual(
      seen,
      all.map((event) => event.id),
    );
    const beyond = await audit(t, `page=${pages + 3}&size=${size}`);
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.metaInfo.numberOfElements, 0);
    assert.equal(beyond.body.metaInfo.totalElements, total);
    assert.equal(beyond.body.metaInfo.lastPage, true);
    assert.equal(beyond.body.metaInfo.firstPage, false);

    const one = await audit(t, 'size=1');
    assert.equal(one.body.data.length, 1);
    assert.equal(one.body.metaInfo.totalPages, total);
    const max = await audit(t, 'size=1000');
    assert.equal(max.body.metaInfo.pageSize, 1000);
    assert.equal(max.body.data.length, total);
  });

  test('sorts by occurredAt either way, one order the exact reverse of the other', async () => {
    const t = await createTestTenant(app);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await createPatient(t, { firstName: `P${n}`, lastName: 'Sort' })).id);
    // One bulk change: three events written at the same instant.
    const bulk = await t.api.patch(`${t.base}/patients`, { ids, timezone: 'US/Eastern' });
    assert.equal(bulk.status, 200, bulk.text);
    const newestFirst = await events(t);
    assert.deepEqual(await events(t, 'sort=occurredAt,desc'), newestFirst);
    assert.deepEqual(await events(t, 'sort=occurredAt,DESC'), newestFirst);
    const oldestFirst = await events(t, 'sort=occurredAt,asc');
    assert.deepEqual(oldestFirst, [...newestFirst].reverse());
    assert.deepEqual(await events(t, 'sort=occurredAt'), oldestFirst);
  });
});

describe('audit access', () => {
  test('is 401 without a token', async () => {
    const t = await createTestTenant(app);
    const response = await anonymous.get(`${t.admin}/audit-data`);
    assertError(response, 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertError(await anonymous.get(`${t.admin}/audit-data?patientId=bad`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertError(await new Api(app.server, 'not.a.token').get(`${t.admin}/audit-data`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
  });

  test('needs AUDIT_READ: 403 ACCESS_DENIED without it', async () => {
    const t = await createTestTenant(app);
    const without = await t.apiWith(['PATIENT_READ', 'PATIENT_CREATE', 'FORMATION_READ']);
    const response = await without.get(`${t.admin}/audit-data`);
    assertError(response, 403, 'ACCESS_DENIED');
    assert.equal(response.body[0].details.permission, 'AUDIT_READ');
    assertError(await without.get(`${t.admin}/audit-data?patientId=bad`), 403, 'ACCESS_DENIED');
    const nothing = new Api(app.server, (await t.clientWithRole('nothing')).token);
    assertError(await nothing.get(`${t.admin}/audit-data`), 403, 'ACCESS_DENIED');

    const reader = await t.apiWith(['AUDIT_READ']);
    const allowed = await reader.get(`${t.admin}/audit-data`);
    assert.equal(allowed.status, 200);
    assert.ok(allowed.body.data.length > 0);
  });

  test("a tenant never sees another tenant's audit events", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const inA = await createPatient(a, { firstName: 'In', lastName: 'A' });
    const inB = await createPatient(b, { firstName: 'In', lastName: 'B' });
    assert.equal((await b.api.patch(`${b.base}/patients/${inB.id}`, { lastName: 'Bee' })).status, 200);

    assertError(await a.api.get(`${b.admin}/audit-data`), 403, 'TENANT_ACCESS_DENIED');
    assertError(await a.api.get(`${b.admin}/audit-data?patientId=${inB.id}`), 403, 'TENANT_ACCESS_DENIED');

    const aEvents = await events(a);
    const bEvents = await events(b);
    const bIds = new Set(bEvents.map((event) => event.id));
    assert.ok(aEvents.every((event) => !bIds.has(event.id)));
    assert.ok(aEvents.every((event) => event.actorId !== b.adminClient.id && event.entityId !== inB.id));
    assert.ok(aEvents.every((event) => event.instanceId === null || event.instanceId === a.instance.id));
    assert.ok(aEvents.some((event) => event.entityId === inA.id));
    assert.ok(bEvents.every((event) => event.entityId !== inA.id));
    // Filtering by B's ids from A finds nothing.
    assert.deepEqual(await events(a, `patientId=${inB.id}`), []);
    assert.deepEqual(await events(a, `entityId=${inB.id}`), []);
    assert.deepEqual(await events(a, `actorId=${b.adminClient.id}`), []);
    // Both tenants have an instance named sandbox: the name filter stays within the tenant.
    const sandbox = await events(a, 'instanceName=sandbox');
    assert.ok(sandbox.every((event) => event.instanceId === a.instance.id));
    assert.equal((await audit(a)).body.metaInfo.totalElements, aEvents.length);
  });

  test('an unknown tenant is 404', async () => {
    const t = await createTestTenant(app);
    assertError(await t.api.get('/no-such-tenant/admin/audit-data'), 404, 'TENANT_NOT_FOUND');
  });
});
