import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { Api, createTestTenant, errorCode, metaInfoKeys, type Response, startApp, type TestTenant } from '../../test/harness.ts';

const app = await startApp();
const anonymous = new Api(app.server, undefined);

const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Creates a user through the API; the body's username and email default to unique values. */
async function createUser(t: TestTenant, body: Record<string, unknown> = {}) {
  const name = `user-${randomUUID().slice(0, 8)}`;
  const response = await t.api.post(`${t.admin}/users`, { username: name, email: `${name}@example.org`, ...body });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

/** The usernames of a list response, in order. */
const usernames = (response: Response<any>): string[] => response.body.data.map((user: { username: string }) => user.username);

/** The audit actions recorded for one user, oldest first. */
async function auditActions(t: TestTenant, userId: string): Promise<string[]> {
  const response = await t.api.get(`${t.admin}/audit-data?entityId=${userId}&size=100&sort=occurredAt,asc`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.map((event: { action: string }) => event.action);
}

function assertError(response: Response<any>, status: number, code: string) {
  assert.equal(response.status, status, response.text);
  assert.ok(Array.isArray(response.body), 'the error body is an array');
  assert.equal(errorCode(response), code, response.text);
  assert.match(response.body[0].date, UTC);
}

/** A 400 VALIDATION_ERROR naming the field path (or a path starting with it). */
function assertInvalid(response: Response<any>, path?: string) {
  assertError(response, 400, 'VALIDATION_ERROR');
  if (path) {
    const paths: string[] = response.body[0].details.errors.map((error: { path: string }) => error.path);
    assert.ok(
      paths.some((p) => p === path || p.startsWith(`${path}.`)),
      `expected an error at ${path}, got ${paths.join(', ')}`,
    );
  }
}

describe('GET /{tenant}/admin/users', () => {
  test('answers data and meta with every metaInfo key, and pages', async () => {
    const t = await createTestTenant(app);
    for (const name of ['carol', 'alice', 'bob']) await createUser(t, { username: name, email: `${name}@example.org` });

    const all = await t.api.get(`${t.admin}/users`);
    assert.equal(all.status, 200);
    assert.deepEqual(Object.keys(all.body).sort(), ['data', 'metaInfo']);
    assert.deepEqual(Object.keys(all.body.metaInfo).sort(), metaInfoKeys);
    assert.deepEqual(all.body.metaInfo, {
      page: 0,
      pageSize: 20,
      totalElements: 3,
      numberOfElements: 3,
      totalPages: 1,
      firstPage: true,
      lastPage: true,
    });
    // Default order: username ascending.
    assert.deepEqual(usernames(all), ['alice', 'bob', 'carol']);
    assert.equal(all.body.data[0].tenantName, t.tenant.name);

    const first = await t.api.get(`${t.admin}/users?page=0&size=2`);
    assert.deepEqual(usernames(first), ['alice', 'bob']);
    assert.deepEqual(first.body.metaInfo, {
      page: 0,
      pageSize: 2,
      totalElements: 3,
      numberOfElements: 2,
      totalPages: 2,
      firstPage: true,
      lastPage: false,
    });
    const second = await t.api.get(`${t.admin}/users?page=1&size=2`);
    assert.deepEqual(usernames(second), ['carol']);
    assert.equal(second.body.metaInfo.firstPage, false);
    assert.equal(second.body.metaInfo.lastPage, true);
    assert.equal(second.body.metaInfo.numberOfElements, 1);
    const beyond = await t.api.get(`${t.admin}/users?page=5&size=2`);
    assert.equal(beyond.status, 200);
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.metaInfo.totalElements, 3);
  });

  test('an empty tenant lists nothing', async () => {
    const t = await createTestTenant(app);
    const response = await t.api.get(`${t.admin}/users`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, {
      data: [],
      metaInfo: { page: 0, pageSize: 20, totalElements: 0, numberOfElements: 0, totalPages: 0, firstPage: true, lastPage: true },
    });
  });

  test('size is bounded 1–1000 and page must be a non-negative integer', async () => {
    const t = await createTestTenant(app);
    await createUser(t);
    const one = await t.api.get(`${t.admin}/users?size=1`);
    assert.equal(one.status, 200);
    assert.equal(one.body.metaInfo.pageSize, 1);
    const max = await t.api.get(`${t.admin}/users?size=1000`);
    assert.equal(max.status, 200);
    assert.equal(max.body.metaInfo.pageSize, 1000);
    for (const query of ['size=0', 'size=1001', 'size=-1', 'size=abc', 'size=', 'page=-1', 'page=x']) {
      assertInvalid(await t.api.get(`${t.admin}/users?${query}`), `querystring.${query.split('=')[0]}`);
    }
  });

  // Bug in src/http/validation.ts: TypeBox's Convert turns "2.5" into 2 (and "1e2" into 100,
  // "0x10" into 16) before the integer check, so these page silently instead of answering 400.
  test('a size or page that is not a plain integer is 400', async () => {
    const t = await createTestTenant(app);
    for (const query of ['size=2.5', 'size=1e2', 'size=0x10', 'page=1.5']) {
      assertInvalid(await t.api.get(`${t.admin}/users?${query}`), `querystring.${query.split('=')[0]}`);
    }
  });

  test('filters by email, ids, firstName and lastName (whole values, any case)', async () => {
    const t = await createTestTenant(app);
    const ann = await createUser(t, { username: 'ann', email: 'ann@example.org', firstName: 'Ann', lastName: 'Lee' });
    const ben = await createUser(t, { username: 'ben', email: 'ben@example.org', firstName: 'Ben', lastName: 'Lee' });
    const cat = await createUser(t, { username: 'cat', email: 'cat@example.org', firstName: 'Cat', lastName: 'Smith' });

    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?email=ANN@Example.org`)), ['ann']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?email=ann@example`)), []);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?ids=${ann.id},${cat.id}`)), ['ann', 'cat']);
    // Repeated keys work too.
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?ids=${ben.id}&ids=${cat.id}`)), ['ben', 'cat']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?ids=${randomUUID()}`)), []);
    assertInvalid(await t.api.get(`${t.admin}/users?ids=${ann.id},not-a-uuid`), 'querystring.ids');
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?firstName=ben`)), ['ben']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?lastName=LEE`)), ['ann', 'ben']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?lastName=Lee&firstName=Ann`)), ['ann']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?lastName=Le`)), []);
    const filtered = await t.api.get(`${t.admin}/users?lastName=Lee&size=1`);
    assert.equal(filtered.body.metaInfo.totalElements, 2);
    assert.equal(filtered.body.metaInfo.totalPages, 2);
  });

  test('filters by region, and by territories only together with region', async () => {
    const t = await createTestTenant(app);
    await createUser(t, {
      username: 'westie',
      territories: [{ name: 'west', territories: ['california'], instanceName: 'sandbox' }],
    });
    await createUser(t, {
      username: 'both',
      territories: [
        { name: 'west', territories: ['oregon'], instanceName: 'sandbox' },
        { name: 'east', territories: ['florida'], instanceName: 'sandbox' },
      ],
    });
    await createUser(t, { username: 'nowhere' });

    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=west`)), ['both', 'westie']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=east`)), ['both']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=north`)), []);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=west&territories=california`)), ['westie']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=west&territories=california,oregon`)), [
      'both',
      'westie',
    ]);
    // florida is in east, not west.
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=west&territories=florida`)), []);
    // Without region, territories has no effect: an unusable parameter is ignored, never a 400 (DECISIONS §10).
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?territories=california`)), ['both', 'nowhere', 'westie']);
  });

  test('filters by roleName, userState, seatAssigned and search', async () => {
    const t = await createTestTenant(app);
    await createUser(t, {
      username: 'reader',
      email: 'reader@clinic.example',
      firstName: 'Rita',
      lastName: 'Moreno',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
      seats: ['GENERAL'],
    });
    const boss = await createUser(t, {
      username: 'boss',
      email: 'boss@hq.example',
      firstName: 'Bea',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    });
    await createUser(t, { username: 'plain', email: 'plain@hq.example' });
    assert.equal((await t.api.patch(`${t.admin}/users/boss`, { userState: 'ACTIVE' })).status, 200);

    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?roleName=patient-reader`)), ['reader']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?roleName=admin`)), ['boss']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?roleName=nothing`)), []);

    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?userState=ACTIVE`)), ['boss']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?userState=PROVISIONED`)), ['plain', 'reader']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?userState=INACTIVE`)), []);
    assertInvalid(await t.api.get(`${t.admin}/users?userState=SLEEPING`), 'querystring.userState');

    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?seatAssigned=true`)), ['reader']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?seatAssigned=FALSE`)), ['boss', 'plain']);
    assertInvalid(await t.api.get(`${t.admin}/users?seatAssigned=maybe`), 'querystring.seatAssigned');

    // search: a substring of username, email, first or last name, any case.
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?search=MOREN`)), ['reader']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?search=hq.example`)), ['boss', 'plain']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?search=bea`)), ['boss']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?search=%25`)), []);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?search=zzz`)), []);
    // Filters combine.
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?search=example&userState=ACTIVE&ids=${boss.id}`)), ['boss']);
    // Unknown parameters are ignored (DECISIONS §10).
    assert.equal((await t.api.get(`${t.admin}/users?colour=blue`)).body.metaInfo.totalElements, 3);
  });

  test('includeDeleted lists deleted users, flagged deleted', async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'stays' });
    await createUser(t, { username: 'goes' });
    assert.equal((await t.api.delete(`${t.admin}/users/goes`)).status, 200);

    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users`)), ['stays']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?includeDeleted=false`)), ['stays']);
    const withDeleted = await t.api.get(`${t.admin}/users?includeDeleted=True`);
    assert.deepEqual(usernames(withDeleted), ['goes', 'stays']);
    assert.equal(withDeleted.body.metaInfo.totalElements, 2);
    const [goes, stays] = withDeleted.body.data;
    assert.equal(goes.deleted, true);
    assert.equal(goes.enabled, false);
    assert.equal(Object.hasOwn(stays, 'deleted'), false);
    assertInvalid(await t.api.get(`${t.admin}/users?includeDeleted=perhaps`), 'querystring.includeDeleted');
  });

  test('sorts by a listed field in either direction; anything else is 400 INVALID_SORT', async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'mike', email: 'a@example.org', firstName: 'Zed' });
    await createUser(t, { username: 'Lima', email: 'c@example.org', firstName: 'Amy' });
    await createUser(t, { username: 'november', email: 'b@example.org' });

    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?sort=username,desc`)), ['november', 'mike', 'Lima']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?sort=username,asc`)), ['Lima', 'mike', 'november']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?sort=username`)), ['Lima', 'mike', 'november']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?sort=email,DESC`)), ['Lima', 'november', 'mike']);
    // Users without a first name come last when ascending.
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?sort=firstName,asc`)), ['Lima', 'mike', 'november']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?sort=createdAt,desc`)), ['november', 'Lima', 'mike']);

    for (const sort of ['password,asc', 'username,sideways', 'username,asc,extra', 'id;drop table users']) {
      const response = await t.api.get(`${t.admin}/users?sort=${encodeURIComponent(sort)}`);
      assertError(response, 400, 'INVALID_SORT');
      assert.ok(response.body[0].details.sortableFields.includes('username'));
    }
  });

  test('needs a token and USER_READ', async () => {
    const t = await createTestTenant(app);
    assertError(await anonymous.get(`${t.admin}/users`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const nothing = new Api(app.server, (await t.clientWithRole('nothing')).token);
    const denied = await nothing.get(`${t.admin}/users`);
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_READ');
    const patientReader = await t.apiWith(['PATIENT_READ']);
    assertError(await patientReader.get(`${t.admin}/users`), 403, 'ACCESS_DENIED');
    const reader = await t.apiWith(['USER_READ']);
    assert.equal((await reader.get(`${t.admin}/users`)).status, 200);
  });

  test("a tenant never lists another tenant's users", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    await createUser(a, { username: 'alpha' });
    const bravo = await createUser(b, { username: 'bravo' });
    assertError(await a.api.get(`${b.admin}/users`), 403, 'TENANT_ACCESS_DENIED');
    // Filters in A's own list never reach B's rows.
    assert.deepEqual(usernames(await a.api.get(`${a.admin}/users?ids=${bravo.id}`)), []);
    assert.deepEqual(usernames(await a.api.get(`${a.admin}/users?search=bravo&includeDeleted=true`)), []);
    assert.deepEqual(usernames(await a.api.get(`${a.admin}/users`)), ['alpha']);
    assertError(await a.api.get('/no-such-tenant/admin/users'), 404, 'TENANT_NOT_FOUND');
  });
});

describe('POST /{tenant}/admin/users', () => {
  test('answers 201 with a PROVISIONED user, defaults applied and unset keys omitted', async () => {
    const t = await createTestTenant(app);
    const response = await t.api.post(`${t.admin}/users`, {
      username: 'nurse.amy',
      email: 'amy@example.org',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox', primaryRole: true }],
      policies: [{ permissionName: 'patient-reading', instanceName: 'sandbox' }],
    });
    assert.equal(response.status, 201, response.text);
    const user = response.body;
    assert.match(user.id, /^[0-9a-f-]{36}$/);
    assert.equal(user.username, 'nurse.amy');
    assert.equal(user.email, 'amy@example.org');
    assert.equal(user.tenantName, t.tenant.name);
    assert.equal(user.userState, 'PROVISIONED');
    assert.equal(user.locale, 'en-US');
    assert.equal(user.enabled, true);
    assert.equal(user.mfaEnabled, false);
    assert.equal(user.ssoAccess, false);
    assert.equal(user.passwordAccess, true);
    assert.equal(user.allowedToReceiveCalls, true);
    assert.equal(user.seatAssignAllowed, false);
    assert.equal(user._root_user, false);
    assert.deepEqual(user.seats, []);
    assert.deepEqual(user.customUserAttributes, {});
    assert.deepEqual(user.territories, []);
    assert.match(user.createdAt, UTC);
    assert.match(user.updatedAt, UTC);
    assert.match(user.createdByName, /^API_CLIENT:/);
    // prod: statusType is always present (null); other unset optional keys are left out.
    assert.ok(Object.hasOwn(user, 'statusType'));
    assert.equal(user.statusType, null);
    for (const key of [
      'phone',
      'timezone',
      'firstName',
      'lastName',
      'credentials',
      'terminologyName',
      'fullTerritoriesAccessInstances',
    ]) {
      assert.equal(Object.hasOwn(user, key), false, `${key} should be omitted`);
    }
    assert.equal(Object.hasOwn(user, 'deleted'), false);
    assert.equal(Object.hasOwn(user, 'password'), false);
    assert.equal(Object.hasOwn(user, 'passwordHash'), false);
    // Roles carry SECURITY_ROLE (not the seed's SECURITY_POLICY); policies SECURITY_POLICY.
    assert.equal(user.roles.length, 1);
    assert.deepEqual(
      { ...user.roles[0], createdAt: undefined, updatedAt: undefined },
      {
        permissionName: 'patient-reader',
        instanceName: 'sandbox',
        type: 'SECURITY_ROLE',
        primaryRole: true,
        effectiveDate: null,
        expirationDate: null,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.match(user.roles[0].createdAt, UTC);
    assert.equal(user.policies.length, 1);
    assert.equal(user.policies[0].type, 'SECURITY_POLICY');
    assert.equal(user.policies[0].permissionName, 'patient-reading');
    assert.equal(user.applicationAccess.userId, user.id);
    assert.deepEqual(
      user.applicationAccess.instanceAccesses.map((access: { instanceName: string; instanceId: string }) => [
        access.instanceName,
        access.instanceId,
      ]),
      [['sandbox', t.instance.id]],
    );

    // The stored user reads back the same.
    const read = await t.api.get(`${t.admin}/users/nurse.amy`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, user);
  });

  test('stores every writable field', async () => {
    const t = await createTestTenant(app);
    const response = await t.api.post(`${t.admin}/users`, {
      username: 'dr.who',
      email: 'who@example.org',
      phone: '+14155550123',
      timezone: 'US/Pacific',
      locale: 'en-GB',
      firstName: 'John',
      lastName: 'Smith',
      credentials: 'MD',
      terminologyName: 'english',
      enabled: false,
      mfaEnabled: true,
      statusType: 'CONFIRMED',
      ssoAccess: true,
      passwordAccess: false,
      customUserAttributes: { npi: '1234567890', licensure_states: ['CA', 'OR'] },
      allowedToReceiveCalls: false,
      territories: [{ name: 'west', territories: ['california', 'oregon'], instanceName: 'sandbox' }],
      fullTerritoriesAccessInstances: ['sandbox'],
      seats: ['GENERAL'],
      seatAssignAllowed: true,
      applicationAccess: { adminAccessEnabled: true, auditSecurityAccessEnabled: true },
    });
    assert.equal(response.status, 201, response.text);
    const user = response.body;
    assert.equal(user.phone, '+14155550123');
    assert.equal(user.timezone, 'US/Pacific');
    assert.equal(user.locale, 'en-GB');
    assert.equal(user.firstName, 'John');
    assert.equal(user.lastName, 'Smith');
    assert.equal(user.credentials, 'MD');
    assert.equal(user.terminologyName, 'english');
    assert.equal(user.enabled, false);
    assert.equal(user.mfaEnabled, true);
    assert.equal(user.statusType, 'CONFIRMED');
    assert.equal(user.ssoAccess, true);
    assert.equal(user.passwordAccess, false);
    assert.deepEqual(user.customUserAttributes, { npi: '1234567890', licensure_states: ['CA', 'OR'] });
    assert.equal(user.allowedToReceiveCalls, false);
    assert.deepEqual(user.seats, ['GENERAL']);
    assert.equal(user.seatAssignAllowed, true);
    assert.equal(user.applicationAccess.adminAccessEnabled, true);
    assert.equal(user.applicationAccess.auditSecurityAccessEnabled, true);
    assert.deepEqual(user.fullTerritoriesAccessInstances, ['sandbox']);
    assert.equal(user.territories.length, 1);
    assert.deepEqual(
      {
        name: user.territories[0].name,
        territories: user.territories[0].territories,
        instanceName: user.territories[0].instanceName,
      },
      { name: 'west', territories: ['california', 'oregon'], instanceName: 'sandbox' },
    );
    assert.match(user.territories[0].createdAt, UTC);
    // userState is always PROVISIONED on create, whatever the body says.
    const other = await createUser(t, { userState: 'ACTIVE' });
    assert.equal(other.userState, 'PROVISIONED');
    // locale may be null, which means the default.
    assert.equal((await createUser(t, { locale: null })).locale, 'en-US');
  });

  test('ignores read-only and unknown keys', async () => {
    const t = await createTestTenant(app);
    const id = randomUUID();
    const user = await createUser(t, {
      id,
      createdAt: '2000-01-01T00:00:00.000Z',
      tenantName: 'someone-else',
      _root_user: true,
      favouriteColour: 'blue',
    });
    assert.notEqual(user.id, id);
    assert.notEqual(user.createdAt, '2000-01-01T00:00:00.000Z');
    assert.equal(user.tenantName, t.tenant.name);
    assert.equal(user._root_user, false);
    assert.equal(Object.hasOwn(user, 'favouriteColour'), false);
  });

  test('bad input is 400 naming the field, and nothing is created', async () => {
    const t = await createTestTenant(app);
    const ok = { username: 'valid', email: 'valid@example.org' };
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'x@example.org' }, 'body.username'],
      [{ username: 'x' }, 'body.email'],
      [{ ...ok, username: '' }, 'body.username'],
      [{ ...ok, username: 'has space' }, 'body.username'],
      [{ ...ok, username: 'has/slash' }, 'body.username'],
      [{ ...ok, username: 5 }, 'body.username'],
      [{ ...ok, email: 'not-an-email' }, 'body.email'],
      [{ ...ok, email: 42 }, 'body.email'],
      [{ ...ok, phone: '+4402079460000' }, 'body.phone'],
      [{ ...ok, phone: '020 7946 0000' }, 'body.phone'],
      [{ ...ok, phone: '+1415555' }, 'body.phone'],
      [{ ...ok, timezone: 'Mars/Olympus_Mons' }, 'body.timezone'],
      [{ ...ok, locale: 'english' }, 'body.locale'],
      [{ ...ok, enabled: 'yes' }, 'body.enabled'],
      [{ ...ok, mfaEnabled: 1 }, 'body.mfaEnabled'],
      [{ ...ok, userState: 'SLEEPING' }, 'body.userState'],
      [{ ...ok, customUserAttributes: 'npi' }, 'body.customUserAttributes'],
      [{ ...ok, seats: ['general seat'] }, 'body.seats'],
      [{ ...ok, firstName: 'x'.repeat(256) }, 'body.firstName'],
      // Bounded lists: a write stays small whatever a client sends.
      [{ ...ok, roles: Array(1001).fill({ permissionName: 'admin', instanceName: 'sandbox' }) }, 'body.roles'],
      [{ ...ok, fullTerritoriesAccessInstances: Array(1001).fill('sandbox') }, 'body.fullTerritoriesAccessInstances'],
      [
        { ...ok, territories: [{ name: 'west', territories: Array(1001).fill('oregon'), instanceName: 'sandbox' }] },
        'body.territories.0.territories',
      ],
      [{ ...ok, roles: [{ permissionName: 'no-such-role', instanceName: 'sandbox' }] }, 'body.roles.0.permissionName'],
      [{ ...ok, roles: [{ permissionName: 'admin', instanceName: 'no-such-instance' }] }, 'body.roles.0.instanceName'],
      // A policy name is not a role name.
      [{ ...ok, roles: [{ permissionName: 'everything', instanceName: 'sandbox' }] }, 'body.roles.0.permissionName'],
      [{ ...ok, policies: [{ permissionName: 'admin', instanceName: 'sandbox' }] }, 'body.policies.0.permissionName'],
      [{ ...ok, roles: [{ instanceName: 'sandbox' }] }, 'body.roles.0.permissionName'],
      [
        { ...ok, roles: [{ permissionName: 'admin', instanceName: 'sandbox', effectiveDate: 'soon' }] },
        'body.roles.0.effectiveDate',
      ],
      [{ ...ok, territories: [{ name: 'north', territories: [], instanceName: 'sandbox' }] }, 'body.territories.0.name'],
      [
        { ...ok, territories: [{ name: 'west', territories: ['florida'], instanceName: 'sandbox' }] },
        'body.territories.0.territories',
      ],
      [{ ...ok, territories: [{ name: 'west', territories: [], instanceName: 'live' }] }, 'body.territories.0.instanceName'],
      [{ ...ok, territories: [{ name: 'west', instanceName: 'sandbox' }] }, 'body.territories.0.territories'],
      [{ ...ok, fullTerritoriesAccessInstances: ['live'] }, 'body.fullTerritoriesAccessInstances.0'],
    ];
    for (const [body, path] of cases) {
      assertInvalid(await t.api.post(`${t.admin}/users`, body), path);
    }
    const notJson = await t.api.request('POST', `${t.admin}/users`, '{"username":', { 'content-type': 'application/json' });
    assertError(notJson, 400, 'MALFORMED_JSON');
    assertInvalid(await t.api.request('POST', `${t.admin}/users`, '[]', { 'content-type': 'application/json' }));
    assert.equal((await t.api.get(`${t.admin}/users?includeDeleted=true`)).body.metaInfo.totalElements, 0);
    assert.deepEqual(await auditActionsOfTenant(t), []);
  });

  test('username and email are unique in the tenant, any case: 409 DUPLICATE_VALUE', async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'unique', email: 'unique@example.org' });
    const sameName = await t.api.post(`${t.admin}/users`, { username: 'UNIQUE', email: 'other@example.org' });
    assertError(sameName, 409, 'DUPLICATE_VALUE');
    assert.equal(sameName.body[0].details.field, 'username');
    const sameEmail = await t.api.post(`${t.admin}/users`, { username: 'other', email: 'Unique@Example.org' });
    assertError(sameEmail, 409, 'DUPLICATE_VALUE');
    assert.equal(sameEmail.body[0].details.field, 'email');
    assert.equal((await t.api.get(`${t.admin}/users`)).body.metaInfo.totalElements, 1);

    // Another tenant may use the same names.
    const other = await createTestTenant(app);
    await createUser(other, { username: 'unique', email: 'unique@example.org' });
  });

  test('needs a token and USER_PROVISION', async () => {
    const t = await createTestTenant(app);
    const body = { username: 'someone', email: 'someone@example.org' };
    assertError(await anonymous.post(`${t.admin}/users`, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['USER_READ', 'USER_REGIONS']);
    const denied = await reader.post(`${t.admin}/users`, body);
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_PROVISION');
    const nothing = new Api(app.server, (await t.clientWithRole('nothing')).token);
    assertError(await nothing.post(`${t.admin}/users`, body), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${t.admin}/users`)).body.metaInfo.totalElements, 0);
    const provisioner = await t.apiWith(['USER_PROVISION']);
    assert.equal((await provisioner.post(`${t.admin}/users`, body)).status, 201);
  });

  test('000: territories in a user body need USER_REGIONS too, unless they stay as they are', async () => {
    const t = await createTestTenant(app);
    const provisioner = await t.apiWith(['USER_PROVISION', 'USER_READ']);
    const west = [{ name: 'west', territories: ['california'], instanceName: 'sandbox' }];
    const denied = await provisioner.post(`${t.admin}/users`, {
      username: 'terra',
      email: 'terra@example.org',
      territories: west,
    });
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_REGIONS');
    assert.equal((await t.api.get(`${t.admin}/users?includeDeleted=true`)).body.metaInfo.totalElements, 0, 'nothing written');

    const user = await createUser(t, { username: 'terra', territories: west });
    // The whole record read back, territories unchanged: allowed. Changed: denied, nothing written.
    const read = (await provisioner.get(`${t.admin}/users/terra`)).body;
    const same = await provisioner.put(`${t.admin}/users/terra`, { ...read, firstName: 'Terra' });
    assert.equal(same.status, 200, same.text);
    const east = [{ name: 'east', territories: ['florida'], instanceName: 'sandbox' }];
    for (const attempt of [
      () => provisioner.patch(`${t.admin}/users/terra`, { territories: east }),
      () => provisioner.put(`${t.admin}/users/terra`, { ...read, territories: [] }),
      () => provisioner.patch(`${t.admin}/users/terra`, { fullTerritoriesAccessInstances: ['sandbox'] }),
    ]) {
      const response = await attempt();
      assertError(response, 403, 'ACCESS_DENIED');
      assert.equal(response.body[0].details.permission, 'USER_REGIONS');
    }
    const after = (await t.api.get(`${t.admin}/user-territories/${user.id}`)).body;
    assert.deepEqual(
      after.territories.map((entry: { name: string; territories: string[] }) => [entry.name, entry.territories]),
      [['west', ['california']]],
    );
    const regions = await t.apiWith(['USER_PROVISION', 'USER_REGIONS']);
    assert.equal((await regions.patch(`${t.admin}/users/terra`, { territories: east })).status, 200);
  });

  test('a tenant cannot create users in another tenant', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    assertError(
      await a.api.post(`${b.admin}/users`, { username: 'intruder', email: 'intruder@example.org' }),
      403,
      'TENANT_ACCESS_DENIED',
    );
    assert.equal((await b.api.get(`${b.admin}/users?includeDeleted=true`)).body.metaInfo.totalElements, 0);
    assert.equal((await a.api.get(`${a.admin}/users?includeDeleted=true`)).body.metaInfo.totalElements, 0);
  });
});

/** Every audit action of a tenant. */
async function auditActionsOfTenant(t: TestTenant): Promise<string[]> {
  const response = await t.api.get(`${t.admin}/audit-data?entityType=USER&size=100`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.map((event: { action: string }) => event.action);
}

describe('GET /{tenant}/admin/users/{userName}', () => {
  test('reads by username (any case), by id with type=ID and by email with type=EMAIL', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, { username: 'Grace.Hopper', email: 'Grace@Navy.example', firstName: 'Grace' });
    for (const path of [
      'Grace.Hopper',
      'grace.hopper',
      `${user.id}?type=ID`,
      'grace@navy.example?type=EMAIL',
      `${encodeURIComponent('Grace@Navy.example')}?type=EMAIL`,
    ]) {
      const response = await t.api.get(`${t.admin}/users/${path}`);
      assert.equal(response.status, 200, path);
      assert.deepEqual(response.body, user);
    }
    // Unknown query parameters are ignored.
    assert.equal((await t.api.get(`${t.admin}/users/grace.hopper?page=0`)).status, 200);
  });

  test('a missing user is 404 USER_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, { username: 'present', email: 'present@example.org' });
    for (const path of [
      'absent',
      `${randomUUID()}?type=ID`,
      'not-a-uuid?type=ID',
      'absent@example.org?type=EMAIL',
      // The segment is read as the lookup type says: an id is not a username, a username not an email.
      user.id,
      'present?type=EMAIL',
      'present@example.org',
    ]) {
      const response = await t.api.get(`${t.admin}/users/${path}`);
      assertError(response, 404, 'USER_NOT_FOUND');
      assert.equal(response.body[0].componentType, 'USER');
      assert.equal(response.body[0].message, "User doesn't exist");
    }
  });

  test('a bad type is 400', async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'typed' });
    assertInvalid(await t.api.get(`${t.admin}/users/typed?type=NAME`), 'querystring.type');
    assertInvalid(await t.api.get(`${t.admin}/users/typed?type=id`), 'querystring.type');
  });

  test('needs a token and USER_READ', async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'guarded' });
    assertError(await anonymous.get(`${t.admin}/users/guarded`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const nothing = new Api(app.server, (await t.clientWithRole('nothing')).token);
    const denied = await nothing.get(`${t.admin}/users/guarded`);
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_READ');
    // Permission comes before existence: no probing for usernames without USER_READ.
    assertError(await nothing.get(`${t.admin}/users/absent`), 403, 'ACCESS_DENIED');
    const reader = await t.apiWith(['USER_READ']);
    assert.equal((await reader.get(`${t.admin}/users/guarded`)).status, 200);
  });

  test("a tenant cannot read another tenant's user", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bravo = await createUser(b, { username: 'bravo', email: 'bravo@example.org' });
    for (const path of ['bravo', `${bravo.id}?type=ID`, 'bravo@example.org?type=EMAIL']) {
      assertError(await a.api.get(`${b.admin}/users/${path}`), 403, 'TENANT_ACCESS_DENIED');
      // Nor through its own tenant's path.
      assertError(await a.api.get(`${a.admin}/users/${path}`), 404, 'USER_NOT_FOUND');
    }
  });
});

describe('PATCH /{tenant}/admin/users/{userName}', () => {
  test('changes only the fields present', async () => {
    const t = await createTestTenant(app);
    const before = await createUser(t, {
      username: 'patchy',
      email: 'patchy@example.org',
      firstName: 'Pat',
      lastName: 'Chee',
      phone: '+14155550123',
      timezone: 'US/Eastern',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
      territories: [{ name: 'east', territories: ['florida'], instanceName: 'sandbox' }],
      customUserAttributes: { zoomId: 'z1' },
      seats: ['GENERAL'],
    });
    const response = await t.api.patch(`${t.admin}/users/patchy`, { firstName: 'Patricia', mfaEnabled: true });
    assert.equal(response.status, 200, response.text);
    const after = response.body;
    assert.equal(after.firstName, 'Patricia');
    assert.equal(after.mfaEnabled, true);
    assert.ok(after.updatedAt >= before.updatedAt);
    const unchanged = (user: Record<string, unknown>) => ({
      ...user,
      firstName: undefined,
      mfaEnabled: undefined,
      updatedAt: undefined,
      applicationAccess: undefined,
    });
    assert.deepEqual(unchanged(after), unchanged(before));
    assert.deepEqual((await t.api.get(`${t.admin}/users/patchy`)).body, after);

    // An empty patch changes nothing but is fine.
    const empty = await t.api.patch(`${t.admin}/users/patchy`, {});
    assert.equal(empty.status, 200);
    assert.equal(empty.body.firstName, 'Patricia');
    assert.deepEqual(
      empty.body.roles.map((role: { permissionName: string }) => role.permissionName),
      ['patient-reader'],
    );
  });

  test('null clears an optional field; roles, policies and territories are replaced when given', async () => {
    const t = await createTestTenant(app);
    await createUser(t, {
      username: 'clearme',
      firstName: 'Clear',
      phone: '+14155550123',
      locale: 'en-GB',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
      policies: [{ permissionName: 'patient-reading', instanceName: 'sandbox' }],
      territories: [{ name: 'east', territories: ['florida'], instanceName: 'sandbox' }],
      fullTerritoriesAccessInstances: ['sandbox'],
    });
    const cleared = await t.api.patch(`${t.admin}/users/clearme`, { firstName: null, phone: null, locale: null });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(Object.hasOwn(cleared.body, 'firstName'), false);
    assert.equal(Object.hasOwn(cleared.body, 'phone'), false);
    assert.equal(cleared.body.locale, 'en-US');

    const regranted = await t.api.patch(`${t.admin}/users/clearme`, {
      roles: [{ permissionName: 'admin', instanceName: 'sandbox', primaryRole: true }],
      territories: [{ name: 'west', territories: ['oregon'], instanceName: 'sandbox' }],
    });
    assert.equal(regranted.status, 200, regranted.text);
    assert.deepEqual(
      regranted.body.roles.map((role: { permissionName: string; type: string }) => [role.permissionName, role.type]),
      [['admin', 'SECURITY_ROLE']],
    );
    // Policies were not in the body: kept.
    assert.deepEqual(
      regranted.body.policies.map((policy: { permissionName: string }) => policy.permissionName),
      ['patient-reading'],
    );
    assert.deepEqual(
      regranted.body.territories.map((entry: { name: string; territories: string[] }) => [entry.name, entry.territories]),
      [['west', ['oregon']]],
    );
    assert.deepEqual(regranted.body.fullTerritoriesAccessInstances, ['sandbox']);

    const stripped = await t.api.patch(`${t.admin}/users/clearme`, {
      roles: [],
      policies: null,
      fullTerritoriesAccessInstances: null,
    });
    assert.equal(stripped.status, 200, stripped.text);
    assert.deepEqual(stripped.body.roles, []);
    assert.deepEqual(stripped.body.policies, []);
    assert.deepEqual(stripped.body.applicationAccess.instanceAccesses, []);
    assert.equal(Object.hasOwn(stripped.body, 'fullTerritoriesAccessInstances'), false);
    // Territories were not in the body: kept.
    assert.equal(stripped.body.territories.length, 1);
  });

  test('finds the user by type=ID or type=EMAIL, and can rename it', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, { username: 'old.name', email: 'old@example.org' });
    const byId = await t.api.patch(`${t.admin}/users/${user.id}?type=ID`, { lastName: 'ById' });
    assert.equal(byId.status, 200, byId.text);
    assert.equal(byId.body.lastName, 'ById');
    const byEmail = await t.api.patch(`${t.admin}/users/OLD@example.org?type=EMAIL`, {
      username: 'new.name',
      email: 'new@example.org',
    });
    assert.equal(byEmail.status, 200, byEmail.text);
    assert.equal(byEmail.body.id, user.id);
    assert.equal(byEmail.body.username, 'new.name');
    assert.equal(byEmail.body.lastName, 'ById');
    assertError(await t.api.get(`${t.admin}/users/old.name`), 404, 'USER_NOT_FOUND');
    assert.equal((await t.api.get(`${t.admin}/users/new.name`)).body.email, 'new@example.org');
  });

  test('accepts a whole record read before (read-only keys are ignored)', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, {
      firstName: 'Round',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
      territories: [{ name: 'west', territories: ['california'], instanceName: 'sandbox' }],
      seats: ['GENERAL'],
    });
    const response = await t.api.patch(`${t.admin}/users/${user.username}`, { ...user, lastName: 'Trip', shoeSize: 44 });
    assert.equal(response.status, 200, response.text);
    // The audit names the writable fields sent, not the read-only or unknown ones.
    const audit = await t.api.get(`${t.admin}/audit-data?entityId=${user.id}&action=USER_UPDATED`);
    const changed: string[] = audit.body.data[0].changedFields;
    assert.ok(changed.includes('lastName') && changed.includes('roles'));
    for (const key of ['id', 'createdAt', 'updatedAt', 'tenantName', '_root_user', 'createdByName', 'shoeSize']) {
      assert.ok(!changed.includes(key), `${key} is not a changed field`);
    }
    assert.equal(response.body.lastName, 'Trip');
    assert.equal(response.body.firstName, 'Round');
    assert.equal(response.body.id, user.id);
    assert.deepEqual(
      response.body.roles.map((role: { permissionName: string }) => role.permissionName),
      ['admin'],
    );
    assert.deepEqual(
      response.body.territories,
      user.territories.map((entry: Record<string, unknown>) => ({ ...entry, updatedAt: response.body.territories[0].updatedAt })),
    );
  });

  test('bad input is 400 and changes nothing', async () => {
    const t = await createTestTenant(app);
    const before = await createUser(t, { username: 'steady', email: 'steady@example.org' });
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'nope' }, 'body.email'],
      [{ email: null }, 'body.email'],
      [{ username: '' }, 'body.username'],
      [{ phone: '+4402079460000' }, 'body.phone'],
      [{ timezone: 'Nowhere/Special' }, 'body.timezone'],
      [{ enabled: 'false' }, 'body.enabled'],
      [{ firstName: 7 }, 'body.firstName'],
      [{ userState: 'GONE' }, 'body.userState'],
      [{ roles: [{ permissionName: 'ghost', instanceName: 'sandbox' }] }, 'body.roles.0.permissionName'],
      [{ policies: [{ permissionName: 'ghost', instanceName: 'sandbox' }] }, 'body.policies.0.permissionName'],
      [{ roles: [{ permissionName: 'admin', instanceName: 'elsewhere' }] }, 'body.roles.0.instanceName'],
      [{ territories: [{ name: 'south', territories: [], instanceName: 'sandbox' }] }, 'body.territories.0.name'],
      [{ territories: [{ name: 'east', territories: ['oregon'], instanceName: 'sandbox' }] }, 'body.territories.0.territories'],
      [{ fullTerritoriesAccessInstances: ['elsewhere'] }, 'body.fullTerritoriesAccessInstances.0'],
    ];
    for (const [body, path] of cases) {
      assertInvalid(await t.api.patch(`${t.admin}/users/steady`, { firstName: 'Changed', ...body }), path);
    }
    assertInvalid(await t.api.patch(`${t.admin}/users/steady?type=USERNAME`, { firstName: 'Changed' }), 'querystring.type');
    assert.deepEqual((await t.api.get(`${t.admin}/users/steady`)).body, before);
    assert.deepEqual(await auditActions(t, before.id), ['USER_CREATED']);
  });

  test("taking another user's username or email is 409; keeping one's own is fine", async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'first', email: 'first@example.org' });
    const second = await createUser(t, { username: 'second', email: 'second@example.org' });
    const name = await t.api.patch(`${t.admin}/users/second`, { username: 'First' });
    assertError(name, 409, 'DUPLICATE_VALUE');
    assert.equal(name.body[0].details.field, 'username');
    const email = await t.api.patch(`${t.admin}/users/second`, { email: 'FIRST@example.org' });
    assertError(email, 409, 'DUPLICATE_VALUE');
    assert.equal(email.body[0].details.field, 'email');
    const own = await t.api.patch(`${t.admin}/users/second`, { username: 'SECOND', email: 'second@example.org' });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.username, 'SECOND');
    assert.equal((await t.api.get(`${t.admin}/users/${second.id}?type=ID`)).body.email, 'second@example.org');
  });

  test("role changes and disabling take effect at once on the user's own token", async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'worker', roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }] });
    await t.api.put(`${t.admin}/users/worker/password`, { password: 'worker password 1' });
    const login = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'worker',
      password: 'worker password 1',
    });
    assert.equal(login.status, 200, login.text);
    const asUser = new Api(app.server, login.body.token);
    assert.equal((await asUser.get(`${t.base}/patients`)).status, 200);
    assert.equal(
      (await t.api.patch(`${t.admin}/users/worker`, { roles: [{ permissionName: 'nothing', instanceName: 'sandbox' }] })).status,
      200,
    );
    assertError(await asUser.get(`${t.base}/patients`), 403, 'ACCESS_DENIED');
    assert.equal(
      (await t.api.patch(`${t.admin}/users/worker`, { roles: [{ permissionName: 'admin', instanceName: 'sandbox' }] })).status,
      200,
    );
    assert.equal((await asUser.get(`${t.admin}/users`)).status, 200);
    assert.equal((await t.api.patch(`${t.admin}/users/worker`, { enabled: false })).status, 200);
    assertError(await asUser.get(`${t.base}/patients`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const again = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'worker',
      password: 'worker password 1',
    });
    assertError(again, 401, 'INVALID_USER_CREDENTIALS');
  });

  test('a missing user is 404 USER_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    assertError(await t.api.patch(`${t.admin}/users/ghost`, { firstName: 'X' }), 404, 'USER_NOT_FOUND');
    assertError(await t.api.patch(`${t.admin}/users/${randomUUID()}?type=ID`, { firstName: 'X' }), 404, 'USER_NOT_FOUND');
    assertError(await t.api.patch(`${t.admin}/users/ghost@example.org?type=EMAIL`, {}), 404, 'USER_NOT_FOUND');
    await createUser(t, { username: 'gone' });
    await t.api.delete(`${t.admin}/users/gone`);
    assertError(await t.api.patch(`${t.admin}/users/gone`, { firstName: 'X' }), 404, 'USER_NOT_FOUND');
  });

  test('needs a token and USER_PROVISION', async () => {
    const t = await createTestTenant(app);
    const before = await createUser(t, { username: 'locked' });
    assertError(await anonymous.patch(`${t.admin}/users/locked`, { firstName: 'X' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['USER_READ', 'USER_REGIONS']);
    const denied = await reader.patch(`${t.admin}/users/locked`, { firstName: 'X' });
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_PROVISION');
    const nothing = new Api(app.server, (await t.clientWithRole('nothing')).token);
    assertError(await nothing.patch(`${t.admin}/users/locked`, { firstName: 'X' }), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(`${t.admin}/users/locked`)).body, before);
  });

  test("a tenant cannot change another tenant's user", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bravo = await createUser(b, { username: 'bravo', email: 'bravo@example.org' });
    await createUser(a, { username: 'alpha', email: 'alpha@example.org' });
    for (const path of ['bravo', `${bravo.id}?type=ID`, 'bravo@example.org?type=EMAIL']) {
      assertError(await a.api.patch(`${b.admin}/users/${path}`, { firstName: 'Hacked' }), 403, 'TENANT_ACCESS_DENIED');
      assertError(await a.api.patch(`${a.admin}/users/${path}`, { firstName: 'Hacked' }), 404, 'USER_NOT_FOUND');
    }
    // B's names do not clash with A's users.
    assert.equal((await a.api.patch(`${a.admin}/users/alpha`, { email: 'bravo@example.org' })).status, 200);
    assert.deepEqual((await b.api.get(`${b.admin}/users/bravo`)).body, bravo);
  });
});

describe('PUT /{tenant}/admin/users/{userName}', () => {
  test('replaces the user: absent fields take their defaults', async () => {
    const t = await createTestTenant(app);
    const before = await createUser(t, {
      username: 'replace.me',
      email: 'replace@example.org',
      firstName: 'Old',
      lastName: 'Name',
      phone: '+14155550123',
      timezone: 'US/Central',
      locale: 'en-GB',
      enabled: false,
      mfaEnabled: true,
      passwordAccess: false,
      customUserAttributes: { npi: '1' },
      seats: ['GENERAL'],
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
      policies: [{ permissionName: 'everything', instanceName: 'sandbox' }],
      territories: [{ name: 'west', territories: ['oregon'], instanceName: 'sandbox' }],
      fullTerritoriesAccessInstances: ['sandbox'],
      applicationAccess: { adminAccessEnabled: true },
    });
    const response = await t.api.put(`${t.admin}/users/replace.me`, {
      username: 'replaced',
      email: 'replaced@example.org',
      lastName: 'New',
      roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }],
    });
    assert.equal(response.status, 200, response.text);
    const user = response.body;
    assert.equal(user.id, before.id);
    assert.equal(user.createdAt, before.createdAt);
    assert.equal(user.username, 'replaced');
    assert.equal(user.email, 'replaced@example.org');
    assert.equal(user.lastName, 'New');
    for (const key of ['firstName', 'phone', 'timezone', 'fullTerritoriesAccessInstances']) {
      assert.equal(Object.hasOwn(user, key), false, `${key} should be back to unset`);
    }
    assert.equal(user.locale, 'en-US');
    assert.equal(user.enabled, true);
    assert.equal(user.mfaEnabled, false);
    assert.equal(user.passwordAccess, true);
    assert.equal(user.statusType, null);
    assert.deepEqual(user.customUserAttributes, {});
    assert.deepEqual(user.seats, []);
    assert.deepEqual(user.policies, []);
    assert.deepEqual(user.territories, []);
    assert.equal(user.applicationAccess.adminAccessEnabled, false);
    assert.deepEqual(
      user.roles.map((role: { permissionName: string }) => role.permissionName),
      ['patient-reader'],
    );
    assert.deepEqual((await t.api.get(`${t.admin}/users/replaced`)).body, user);
    assertError(await t.api.get(`${t.admin}/users/replace.me`), 404, 'USER_NOT_FOUND');
  });

  test('a record read before can be put back unchanged, by username, id or email', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, {
      firstName: 'Same',
      phone: '+14155550123',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox', primaryRole: true }],
      territories: [{ name: 'east', territories: ['new-york'], instanceName: 'sandbox' }],
      fullTerritoriesAccessInstances: ['sandbox'],
      customUserAttributes: { acuitySchedulingId: 7 },
      seats: ['GENERAL'],
    });
    await t.api.patch(`${t.admin}/users/${user.username}`, { userState: 'ACTIVE' });
    const read = (await t.api.get(`${t.admin}/users/${user.username}`)).body;
    const strip = (u: Record<string, any>) => ({
      ...u,
      updatedAt: undefined,
      applicationAccess: { ...u.applicationAccess, updatedAt: undefined },
      territories: u.territories.map((entry: Record<string, unknown>) => ({ ...entry, updatedAt: undefined })),
      roles: u.roles.map((role: Record<string, unknown>) => ({ ...role, createdAt: undefined, updatedAt: undefined })),
    });
    for (const path of [user.username, `${user.id}?type=ID`, `${user.email}?type=EMAIL`]) {
      const response = await t.api.put(`${t.admin}/users/${path}`, read);
      assert.equal(response.status, 200, `${path}: ${response.text}`);
      assert.deepEqual(strip(response.body), strip(read));
      assert.equal(response.body.userState, 'ACTIVE');
    }
  });

  test('bad input is 400 and changes nothing', async () => {
    const t = await createTestTenant(app);
    const before = await createUser(t, { username: 'firm', email: 'firm@example.org', firstName: 'Firm' });
    const ok = { username: 'firm', email: 'firm@example.org' };
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'firm@example.org' }, 'body.username'],
      [{ username: 'firm' }, 'body.email'],
      [{ ...ok, email: 'firm-at-example.org' }, 'body.email'],
      [{ ...ok, phone: '+4402079460000' }, 'body.phone'],
      [{ ...ok, passwordAccess: 'yes' }, 'body.passwordAccess'],
      [{ ...ok, roles: [{ permissionName: 'ghost', instanceName: 'sandbox' }] }, 'body.roles.0.permissionName'],
      [{ ...ok, roles: [{ permissionName: 'admin', instanceName: 'elsewhere' }] }, 'body.roles.0.instanceName'],
      [{ ...ok, territories: [{ name: 'nowhere', territories: [], instanceName: 'sandbox' }] }, 'body.territories.0.name'],
      [
        { ...ok, territories: [{ name: 'west', territories: ['mars'], instanceName: 'sandbox' }] },
        'body.territories.0.territories',
      ],
    ];
    for (const [body, path] of cases) assertInvalid(await t.api.put(`${t.admin}/users/firm`, body), path);
    assert.deepEqual((await t.api.get(`${t.admin}/users/firm`)).body, before);
    assert.deepEqual(await auditActions(t, before.id), ['USER_CREATED']);
  });

  test("taking another user's username or email is 409", async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'taken', email: 'taken@example.org' });
    await createUser(t, { username: 'mine', email: 'mine@example.org' });
    const name = await t.api.put(`${t.admin}/users/mine`, { username: 'taken', email: 'mine@example.org' });
    assertError(name, 409, 'DUPLICATE_VALUE');
    const email = await t.api.put(`${t.admin}/users/mine`, { username: 'mine', email: 'TAKEN@example.org' });
    assertError(email, 409, 'DUPLICATE_VALUE');
    assert.equal((await t.api.get(`${t.admin}/users/mine`)).body.email, 'mine@example.org');
  });

  test('a missing user is 404 USER_NOT_FOUND (PUT does not create)', async () => {
    const t = await createTestTenant(app);
    const body = { username: 'ghost', email: 'ghost@example.org' };
    assertError(await t.api.put(`${t.admin}/users/ghost`, body), 404, 'USER_NOT_FOUND');
    assertError(await t.api.put(`${t.admin}/users/${randomUUID()}?type=ID`, body), 404, 'USER_NOT_FOUND');
    assertError(await t.api.put(`${t.admin}/users/ghost@example.org?type=EMAIL`, body), 404, 'USER_NOT_FOUND');
    assert.equal((await t.api.get(`${t.admin}/users?includeDeleted=true`)).body.metaInfo.totalElements, 0);
  });

  test('needs a token and USER_PROVISION', async () => {
    const t = await createTestTenant(app);
    const before = await createUser(t, { username: 'kept', email: 'kept@example.org' });
    const body = { username: 'kept', email: 'changed@example.org' };
    assertError(await anonymous.put(`${t.admin}/users/kept`, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['USER_READ']);
    const denied = await reader.put(`${t.admin}/users/kept`, body);
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_PROVISION');
    assert.deepEqual((await t.api.get(`${t.admin}/users/kept`)).body, before);
  });

  test("a tenant cannot replace another tenant's user", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bravo = await createUser(b, { username: 'bravo', email: 'bravo@example.org', firstName: 'Bravo' });
    const body = { username: 'hacked', email: 'hacked@example.org' };
    assertError(await a.api.put(`${b.admin}/users/bravo`, body), 403, 'TENANT_ACCESS_DENIED');
    assertError(await a.api.put(`${b.admin}/users/${bravo.id}?type=ID`, body), 403, 'TENANT_ACCESS_DENIED');
    assertError(await a.api.put(`${a.admin}/users/${bravo.id}?type=ID`, body), 404, 'USER_NOT_FOUND');
    assert.deepEqual((await b.api.get(`${b.admin}/users/bravo`)).body, bravo);
  });
});

describe('DELETE /{tenant}/admin/users/{userName}', () => {
  test('answers 200 with an empty body; the user then 404s but is listed with includeDeleted', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, {
      username: 'leaving',
      email: 'leaving@example.org',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    });
    const response = await t.api.delete(`${t.admin}/users/leaving`);
    assert.equal(response.status, 200);
    assert.equal(response.text, '');
    assertError(await t.api.get(`${t.admin}/users/leaving`), 404, 'USER_NOT_FOUND');
    assertError(await t.api.get(`${t.admin}/users/${user.id}?type=ID`), 404, 'USER_NOT_FOUND');
    assertError(await t.api.get(`${t.admin}/users/leaving@example.org?type=EMAIL`), 404, 'USER_NOT_FOUND');
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users`)), []);
    const listed = await t.api.get(`${t.admin}/users?includeDeleted=true&ids=${user.id}`);
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.data[0].deleted, true);
    assert.equal(listed.body.data[0].enabled, false);
    assert.deepEqual(listed.body.data[0].roles, []);
    // Deleting again: it is gone.
    assertError(await t.api.delete(`${t.admin}/users/leaving`), 404, 'USER_NOT_FOUND');
    // The username and email are free again.
    const again = await createUser(t, { username: 'leaving', email: 'leaving@example.org' });
    assert.notEqual(again.id, user.id);
    assert.equal((await t.api.get(`${t.admin}/users?includeDeleted=true`)).body.metaInfo.totalElements, 2);
  });

  test('deletes by type=ID and type=EMAIL', async () => {
    const t = await createTestTenant(app);
    const one = await createUser(t);
    const two = await createUser(t);
    assert.equal((await t.api.delete(`${t.admin}/users/${one.id}?type=ID`)).status, 200);
    assert.equal((await t.api.delete(`${t.admin}/users/${two.email.toUpperCase()}?type=EMAIL`)).status, 200);
    assert.equal((await t.api.get(`${t.admin}/users`)).body.metaInfo.totalElements, 0);
  });

  test("a deleted user leaves patients' care teams, and another member becomes point of contact", async () => {
    const t = await createTestTenant(app);
    const leaving = await createUser(t, { username: 'leaving' });
    const staying = await createUser(t, { username: 'staying' });
    const patient = await t.api.post(`${t.base}/patients`, {
      firstName: 'Pat',
      lastName: 'Ient',
      careTeam: [{ id: leaving.id, pointOfContact: true }, { id: staying.id }],
    });
    assert.equal(patient.status, 201, patient.text);
    assert.deepEqual(
      patient.body.careTeam.map((member: { id: string; pointOfContact: boolean }) => [member.id, member.pointOfContact]),
      [
        [leaving.id, true],
        [staying.id, false],
      ],
    );
    const alone = await t.api.post(`${t.base}/patients`, { firstName: 'Solo', lastName: 'Case', careTeam: [{ id: leaving.id }] });
    assert.equal(alone.status, 201, alone.text);

    assert.equal((await t.api.delete(`${t.admin}/users/leaving`)).status, 200);
    const after = await t.api.get(`${t.base}/patients/${patient.body.id}`);
    assert.equal(after.status, 200, after.text);
    assert.deepEqual(
      after.body.careTeam.map((member: { id: string; pointOfContact: boolean }) => [member.id, member.pointOfContact]),
      [[staying.id, true]],
    );
    assert.equal(after.body.pointOfContact?.id, staying.id);
    const soloAfter = await t.api.get(`${t.base}/patients/${alone.body.id}`);
    assert.deepEqual(soloAfter.body.careTeam, []);
    assert.equal(soloAfter.body.pointOfContact, null);
    // The patients list filter no longer finds the deleted member.
    const byMember = await t.api.get(`${t.base}/patients?careTeamMemberId=${leaving.id}`);
    assert.equal(byMember.status, 200, byMember.text);
    assert.equal(byMember.body.totalElements, 0);
  });

  test("a deleted user's token stops working and it cannot sign in", async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'signer', roles: [{ permissionName: 'patient-reader', instanceName: 'sandbox' }] });
    assert.equal((await t.api.put(`${t.admin}/users/signer/password`, { password: 'a long enough password' })).status, 200);
    const login = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'signer',
      password: 'a long enough password',
    });
    assert.equal(login.status, 200, login.text);
    const asUser = new Api(app.server, login.body.token);
    assert.equal((await asUser.get(`${t.base}/patients`)).status, 200);
    assert.equal((await t.api.delete(`${t.admin}/users/signer`)).status, 200);
    assertError(await asUser.get(`${t.base}/patients`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const again = await anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'signer',
      password: 'a long enough password',
    });
    assertError(again, 401, 'INVALID_USER_CREDENTIALS');
  });

  test('a missing user is 404 USER_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    assertError(await t.api.delete(`${t.admin}/users/nobody`), 404, 'USER_NOT_FOUND');
    assertError(await t.api.delete(`${t.admin}/users/${randomUUID()}?type=ID`), 404, 'USER_NOT_FOUND');
    assertError(await t.api.delete(`${t.admin}/users/nobody@example.org?type=EMAIL`), 404, 'USER_NOT_FOUND');
    assertInvalid(await t.api.delete(`${t.admin}/users/nobody?type=UUID`), 'querystring.type');
  });

  test('needs a token and USER_PROVISION', async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'durable' });
    assertError(await anonymous.delete(`${t.admin}/users/durable`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['USER_READ', 'USER_REGIONS']);
    const denied = await reader.delete(`${t.admin}/users/durable`);
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_PROVISION');
    assert.equal((await t.api.get(`${t.admin}/users/durable`)).status, 200);
  });

  test("a tenant cannot delete another tenant's user", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bravo = await createUser(b, { username: 'bravo', email: 'bravo@example.org' });
    for (const path of ['bravo', `${bravo.id}?type=ID`, 'bravo@example.org?type=EMAIL']) {
      assertError(await a.api.delete(`${b.admin}/users/${path}`), 403, 'TENANT_ACCESS_DENIED');
      assertError(await a.api.delete(`${a.admin}/users/${path}`), 404, 'USER_NOT_FOUND');
    }
    assert.deepEqual((await b.api.get(`${b.admin}/users/bravo`)).body, bravo);
  });
});

describe('PUT /{tenant}/admin/users/{userName}/password', () => {
  test('answers 200 with an empty body, and the user signs in with it', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, { username: 'pw.user' });
    const response = await t.api.put(`${t.admin}/users/pw.user/password`, { password: 'first password 1' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.text, '');
    const signIn = (password: string) =>
      anonymous.post('/auth/token', { tenantName: t.tenant.name, username: 'pw.user', password });
    assert.equal((await signIn('first password 1')).status, 200);
    // A new password replaces the old one; by id and by email too.
    assert.equal(
      (await t.api.put(`${t.admin}/users/${user.id}/password?type=ID`, { password: 'second password 2' })).status,
      200,
    );
    assertError(await signIn('first password 1'), 401, 'INVALID_USER_CREDENTIALS');
    assert.equal((await signIn('second password 2')).status, 200);
    assert.equal(
      (await t.api.put(`${t.admin}/users/${user.email}/password?type=EMAIL`, { password: 'third password 3' })).status,
      200,
    );
    assert.equal((await signIn('third password 3')).status, 200);
    // Neither the password nor its hash shows in the user.
    const read = await t.api.get(`${t.admin}/users/pw.user`);
    assert.ok(!read.text.includes('third password 3'));
    assert.deepEqual(
      Object.keys(read.body).filter((key) => /password|hash|secret/i.test(key)),
      ['passwordAccess'],
    );
  });

  test('bad input is 400', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, { username: 'pw.bad' });
    for (const body of [
      {},
      { password: 'short' },
      { password: 12345678901234 },
      { password: null },
      { password: 'x'.repeat(201) },
    ]) {
      assertInvalid(await t.api.put(`${t.admin}/users/pw.bad/password`, body), 'body.password');
    }
    assertInvalid(
      await t.api.put(`${t.admin}/users/pw.bad/password?type=NAME`, { password: 'long enough password' }),
      'querystring.type',
    );
    assert.deepEqual(await auditActions(t, user.id), ['USER_CREATED']);
  });

  test('a missing user is 404 USER_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    const body = { password: 'long enough password' };
    assertError(await t.api.put(`${t.admin}/users/nobody/password`, body), 404, 'USER_NOT_FOUND');
    assertError(await t.api.put(`${t.admin}/users/${randomUUID()}/password?type=ID`, body), 404, 'USER_NOT_FOUND');
    assertError(await t.api.put(`${t.admin}/users/no@example.org/password?type=EMAIL`, body), 404, 'USER_NOT_FOUND');
  });

  test('needs a token and USER_PROVISION', async () => {
    const t = await createTestTenant(app);
    await createUser(t, { username: 'pw.guarded' });
    const body = { password: 'long enough password' };
    assertError(await anonymous.put(`${t.admin}/users/pw.guarded/password`, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['USER_READ', 'USER_REGIONS']);
    const denied = await reader.put(`${t.admin}/users/pw.guarded/password`, body);
    assertError(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'USER_PROVISION');
    const login = await anonymous.post('/auth/token', { tenantName: t.tenant.name, username: 'pw.guarded', ...body });
    assertError(login, 401, 'INVALID_USER_CREDENTIALS');
  });

  test("a tenant cannot set another tenant's user's password", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bravo = await createUser(b, { username: 'bravo', email: 'bravo@example.org' });
    const body = { password: 'attacker password' };
    assertError(await a.api.put(`${b.admin}/users/bravo/password`, body), 403, 'TENANT_ACCESS_DENIED');
    assertError(await a.api.put(`${b.admin}/users/${bravo.id}/password?type=ID`, body), 403, 'TENANT_ACCESS_DENIED');
    assertError(await a.api.put(`${a.admin}/users/${bravo.id}/password?type=ID`, body), 404, 'USER_NOT_FOUND');
    const login = await anonymous.post('/auth/token', { tenantName: b.tenant.name, username: 'bravo', ...body });
    assertError(login, 401, 'INVALID_USER_CREDENTIALS');
    assert.deepEqual(await auditActions(b, bravo.id), ['USER_CREATED']);
  });
});

describe('/{tenant}/admin/user-territories/{userId}', () => {
  test('GET answers the record written with the user', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, {
      territories: [{ name: 'west', territories: ['california'], instanceName: 'sandbox' }],
    });
    const response = await t.api.get(`${t.admin}/user-territories/${user.id}`);
    assert.equal(response.status, 200, response.text);
    const record = response.body;
    assert.deepEqual(Object.keys(record).sort(), [
      'createdAt',
      'createdBy',
      'fullTerritoriesAccessInstances',
      'id',
      'territories',
      'updatedAt',
      'updatedBy',
      'userId',
    ]);
    assert.equal(record.userId, user.id);
    assert.match(record.id, /^[0-9a-f-]{36}$/);
    assert.match(record.createdAt, UTC);
    assert.equal(record.createdBy, t.adminClient.id);
    assert.deepEqual(record.fullTerritoriesAccessInstances, []);
    assert.deepEqual(record.territories, user.territories);

    // A user created without territories has an empty record.
    const bare = await createUser(t);
    const empty = await t.api.get(`${t.admin}/user-territories/${bare.id}`);
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body.territories, []);
  });

  test('PUT replaces the record; it reads back, shows on the user and drives the region filter', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, {
      username: 'mapped',
      territories: [{ name: 'west', territories: ['california'], instanceName: 'sandbox' }],
    });
    const first = (await t.api.get(`${t.admin}/user-territories/${user.id}`)).body;
    const response = await t.api.put(`${t.admin}/user-territories/${user.id}`, {
      userId: user.id,
      territories: [
        { name: 'west', territories: ['oregon'], instanceName: 'sandbox' },
        { name: 'east', territories: ['new-york', 'florida'], instanceName: 'sandbox' },
      ],
      fullTerritoriesAccessInstances: ['sandbox'],
    });
    assert.equal(response.status, 200, response.text);
    const record = response.body;
    assert.equal(record.userId, user.id);
    assert.equal(record.id, first.id);
    assert.deepEqual(record.fullTerritoriesAccessInstances, ['sandbox']);
    assert.deepEqual(
      record.territories.map((entry: { name: string; territories: string[]; instanceName: string }) => [
        entry.name,
        entry.territories,
        entry.instanceName,
      ]),
      [
        ['west', ['oregon'], 'sandbox'],
        ['east', ['new-york', 'florida'], 'sandbox'],
      ],
    );
    for (const entry of record.territories) {
      assert.match(entry.createdAt, UTC);
      assert.match(entry.updatedAt, UTC);
      assert.equal(entry.updatedBy, t.adminClient.id);
    }
    // A region already there keeps its createdAt.
    assert.equal(record.territories[0].createdAt, first.territories[0].createdAt);

    assert.deepEqual((await t.api.get(`${t.admin}/user-territories/${user.id}`)).body, record);
    const read = (await t.api.get(`${t.admin}/users/mapped`)).body;
    assert.deepEqual(read.territories, record.territories);
    assert.deepEqual(read.fullTerritoriesAccessInstances, ['sandbox']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=east&territories=florida`)), ['mapped']);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=west&territories=california`)), []);

    // The same id in upper case is the same user.
    const upper = await t.api.put(`${t.admin}/user-territories/${user.id.toUpperCase()}`, { ...record, userId: user.id });
    assert.equal(upper.status, 200, upper.text);
    assert.equal(upper.body.userId, user.id);
    // Sending the record back is fine; an empty list clears it.
    assert.equal((await t.api.put(`${t.admin}/user-territories/${user.id}`, record)).status, 200);
    const cleared = await t.api.put(`${t.admin}/user-territories/${user.id}`, { userId: user.id, territories: [] });
    assert.equal(cleared.status, 200, cleared.text);
    assert.deepEqual(cleared.body.territories, []);
    assert.deepEqual(cleared.body.fullTerritoriesAccessInstances, []);
    assert.deepEqual(usernames(await t.api.get(`${t.admin}/users?region=east`)), []);
  });

  test('bad input is 400 and changes nothing', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, {
      territories: [{ name: 'west', territories: ['california'], instanceName: 'sandbox' }],
    });
    const other = await createUser(t);
    const before = (await t.api.get(`${t.admin}/user-territories/${user.id}`)).body;
    const url = `${t.admin}/user-territories/${user.id}`;
    const entry = { name: 'east', territories: ['florida'], instanceName: 'sandbox' };
    const cases: [unknown, string][] = [
      [{ territories: [entry] }, 'body.userId'],
      [{ userId: other.id, territories: [entry] }, 'body.userId'],
      [{ userId: 'not-a-uuid', territories: [entry] }, 'body.userId'],
      [{ userId: user.id }, 'body.territories'],
      [{ userId: user.id, territories: 'east' }, 'body.territories'],
      [{ userId: user.id, territories: [{ name: 'east', territories: ['florida'] }] }, 'body.territories.0.instanceName'],
      [{ userId: user.id, territories: [{ ...entry, name: 'north' }] }, 'body.territories.0.name'],
      [{ userId: user.id, territories: [{ ...entry, territories: ['california'] }] }, 'body.territories.0.territories'],
      [{ userId: user.id, territories: [{ ...entry, instanceName: 'live' }] }, 'body.territories.0.instanceName'],
      [
        { userId: user.id, territories: [entry], fullTerritoriesAccessInstances: ['live'] },
        'body.fullTerritoriesAccessInstances.0',
      ],
    ];
    for (const [body, path] of cases) assertInvalid(await t.api.put(url, body), path);
    assertInvalid(await t.api.get(`${t.admin}/user-territories/not-a-uuid`), 'params.userId');
    assertInvalid(
      await t.api.put(`${t.admin}/user-territories/not-a-uuid`, { userId: user.id, territories: [] }),
      'params.userId',
    );
    assert.deepEqual((await t.api.get(url)).body, before);
    assert.deepEqual(await auditActions(t, user.id), ['USER_CREATED']);
  });

  test('a missing or deleted user is 404 USER_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    const ghost = randomUUID();
    assertError(await t.api.get(`${t.admin}/user-territories/${ghost}`), 404, 'USER_NOT_FOUND');
    assertError(
      await t.api.put(`${t.admin}/user-territories/${ghost}`, { userId: ghost, territories: [] }),
      404,
      'USER_NOT_FOUND',
    );
    const gone = await createUser(t, { username: 'gone' });
    await t.api.delete(`${t.admin}/users/gone`);
    assertError(await t.api.get(`${t.admin}/user-territories/${gone.id}`), 404, 'USER_NOT_FOUND');
    assertError(
      await t.api.put(`${t.admin}/user-territories/${gone.id}`, { userId: gone.id, territories: [] }),
      404,
      'USER_NOT_FOUND',
    );
  });

  test('GET needs USER_READ; PUT needs USER_REGIONS', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t);
    const url = `${t.admin}/user-territories/${user.id}`;
    const body = { userId: user.id, territories: [{ name: 'east', territories: [], instanceName: 'sandbox' }] };
    assertError(await anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertError(await anonymous.put(url, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const nothing = new Api(app.server, (await t.clientWithRole('nothing')).token);
    const readDenied = await nothing.get(url);
    assertError(readDenied, 403, 'ACCESS_DENIED');
    assert.equal(readDenied.body[0].details.permission, 'USER_READ');

    const provisioner = await t.apiWith(['USER_READ', 'USER_PROVISION']);
    assert.equal((await provisioner.get(url)).status, 200);
    const writeDenied = await provisioner.put(url, body);
    assertError(writeDenied, 403, 'ACCESS_DENIED');
    assert.equal(writeDenied.body[0].details.permission, 'USER_REGIONS');
    assert.deepEqual((await t.api.get(url)).body.territories, []);

    const regions = await t.apiWith(['USER_REGIONS']);
    assertError(await regions.get(url), 403, 'ACCESS_DENIED');
    const written = await regions.put(url, body);
    assert.equal(written.status, 200, written.text);
    assert.equal(written.body.territories[0].name, 'east');
  });

  test("a tenant cannot read or change another tenant's user territories", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bravo = await createUser(b, {
      territories: [{ name: 'west', territories: ['oregon'], instanceName: 'sandbox' }],
    });
    const before = (await b.api.get(`${b.admin}/user-territories/${bravo.id}`)).body;
    const body = { userId: bravo.id, territories: [] };
    assertError(await a.api.get(`${b.admin}/user-territories/${bravo.id}`), 403, 'TENANT_ACCESS_DENIED');
    assertError(await a.api.put(`${b.admin}/user-territories/${bravo.id}`, body), 403, 'TENANT_ACCESS_DENIED');
    assertError(await a.api.get(`${a.admin}/user-territories/${bravo.id}`), 404, 'USER_NOT_FOUND');
    assertError(await a.api.put(`${a.admin}/user-territories/${bravo.id}`, body), 404, 'USER_NOT_FOUND');
    assert.deepEqual((await b.api.get(`${b.admin}/user-territories/${bravo.id}`)).body, before);
  });
});

describe('audit of user writes', () => {
  test('every write appears in audit-data with its action', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, { username: 'audited' });
    await t.api.patch(`${t.admin}/users/audited`, { firstName: 'Aud' });
    await t.api.put(`${t.admin}/users/audited`, { username: 'audited', email: user.email, lastName: 'Ited' });
    await t.api.put(`${t.admin}/users/audited/password`, { password: 'an audited password' });
    await t.api.put(`${t.admin}/user-territories/${user.id}`, {
      userId: user.id,
      territories: [{ name: 'west', territories: ['oregon'], instanceName: 'sandbox' }],
    });
    // Failed writes leave no trace.
    await t.api.patch(`${t.admin}/users/audited`, { email: 'bad' });
    await t.api.put(`${t.admin}/users/audited/password`, { password: 'short' });
    assert.equal((await t.api.delete(`${t.admin}/users/audited`)).status, 200);

    assert.deepEqual(await auditActions(t, user.id), [
      'USER_CREATED',
      'USER_UPDATED',
      'USER_UPDATED',
      'USER_PASSWORD_SET',
      'USER_TERRITORIES_UPDATED',
      'USER_DELETED',
    ]);
    const events = (await t.api.get(`${t.admin}/audit-data?entityId=${user.id}&size=100&sort=occurredAt,asc`)).body.data;
    for (const event of events) {
      assert.equal(event.entityType, 'USER');
      assert.equal(event.entityId, user.id);
      assert.equal(event.actorType, 'API_CLIENT');
      assert.equal(event.actorId, t.adminClient.id);
      assert.match(event.occurredAt, UTC);
    }
    assert.ok(events[1].changedFields.includes('firstName'));
    // The password itself is never written to the audit log.
    const all = await t.api.get(`${t.admin}/audit-data?size=1000`);
    assert.ok(!all.text.includes('an audited password'));
    // Filtering by action works for the user actions.
    const created = await t.api.get(`${t.admin}/audit-data?action=USER_CREATED`);
    assert.equal(created.body.metaInfo.totalElements, 1);
    assert.equal(created.body.data[0].entityId, user.id);
  });

  test("one tenant's user writes never show in another tenant's audit", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const bravo = await createUser(b, { username: 'bravo' });
    assert.deepEqual(await auditActions(a, bravo.id), []);
    assertError(await a.api.get(`${b.admin}/audit-data`), 403, 'TENANT_ACCESS_DENIED');
  });
});
