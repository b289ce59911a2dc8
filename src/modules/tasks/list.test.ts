import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Api, assertCode, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/** GET /tasks: data and meta, every filter and its deprecated alias, sort, paging, and who sees what by default. */

const app = await startApp();
const PASSWORD = 'a long enough password';

async function createUser(t: TestTenant, username: string) {
  const response = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string };
}

async function loginAs(t: TestTenant, username: string): Promise<Api> {
  assert.equal((await t.api.put(`${t.admin}/users/${username}/password`, { password: PASSWORD })).status, 200);
  const login = await t.anonymous.post('/auth/token', { tenantName: t.tenant.name, username, password: PASSWORD });
  assert.equal(login.status, 200, login.text);
  return new Api(app.server, login.body.token);
}

/**
 * Four tasks that differ in every filtered field:
 * t1 LOW TODO nurse/p1 ttmp-a due 1 Jan; t2 URGENT IN_PROGRESS doctor/p2 ttmp-b due 2 Jan, watched by the nurse;
 * t3 HIGH COMPLETED doctor, no patient or template, due 3 Jan 00:00; t4 MEDIUM CANCELED nurse, written by the doctor, no due date.
 */
async function world() {
  const t = await createTestTenant(app);
  const nurse = await createUser(t, 'nurse');
  const doctor = await createUser(t, 'doctor');
  const p1 = await createPatient(t);
  const p2 = await createPatient(t);
  const asNurse = await loginAs(t, 'nurse');
  const asDoctor = await loginAs(t, 'doctor');
  const create = async (body: Record<string, unknown>, api = t.api) => {
    const response = await api.post(`${t.base}/tasks`, body);
    assert.equal(response.status, 201, response.text);
    return response.body as { id: string; [key: string]: unknown };
  };
  const t1 = await create({
    name: 'Call Ada',
    description: 'Discuss the 50% dose',
    status: 'TODO',
    priority: 'LOW',
    assignee: { id: nurse.id },
    patient: { id: p1.id },
    templateName: 'ttmp-a',
    dueDate: '2030-01-01T10:00:00.000Z',
  });
  const t2 = await create({
    name: 'Order labs',
    description: 'HbA1c_panel',
    status: 'IN_PROGRESS',
    priority: 'URGENT',
    assignee: { id: doctor.id },
    patient: { id: p2.id },
    templateName: 'ttmp-b',
    dueDate: '2030-01-02T23:30:00.000Z',
    watchers: [{ id: nurse.id }],
  });
  const t3 = await create({
    name: 'Write letter',
    status: 'COMPLETED',
    priority: 'HIGH',
    assignee: { id: doctor.id },
    dueDate: '2030-01-03T00:00:00.000Z',
  });
  const t4 = await create(
    { name: 'Review CALL notes', description: 'nothing', status: 'CANCELED', priority: 'MEDIUM', assignee: { id: nurse.id } },
    asDoctor,
  );
  const list = async (query: string, api = t.api) => {
    const response = await api.get(`${t.base}/tasks?${query}`);
    assert.equal(response.status, 200, `${query}: ${response.text}`);
    return response;
  };
  /** The names of the tasks a query finds, in order. */
  const names = async (query: string, api = t.api) =>
    (await list(query, api)).body.data.map((task: { name: string }) => task.name) as string[];
  const found = async (query: string, api = t.api) => (await names(query, api)).sort();
  return { t, nurse, doctor, p1, p2, asNurse, asDoctor, t1, t2, t3, t4, list, names, found };
}

const ALL = ['Call Ada', 'Order labs', 'Review CALL notes', 'Write letter'];

describe('GET /tasks', () => {
  test('answers data and meta, newest first by default', async () => {
    const w = await world();
    const response = await w.list('');
    assert.deepEqual(Object.keys(response.body).sort(), ['data', 'metaInfo']);
    assert.deepEqual(response.body.metaInfo, {
      page: 0,
      pageSize: 20,
      totalElements: 4,
      numberOfElements: 4,
      totalPages: 1,
      firstPage: true,
      lastPage: true,
    });
    assert.deepEqual(await w.names(''), ['Review CALL notes', 'Write letter', 'Order labs', 'Call Ada']);
    const first = response.body.data.find((task: { id: string }) => task.id === w.t2.id);
    assert.deepEqual(first, (await w.t.api.get(`${w.t.base}/tasks/${w.t2.id}`)).body, 'list items are whole tasks');
  });

  test('templates and withoutTemplate', async () => {
    const w = await world();
    assert.deepEqual(await w.found('templates=ttmp-a'), ['Call Ada']);
    assert.deepEqual(await w.found('templates=ttmp-a,ttmp-b'), ['Call Ada', 'Order labs']);
    assert.deepEqual(await w.found('templates=ttmp-a&templates=ttmp-b'), ['Call Ada', 'Order labs']);
    assert.deepEqual(await w.found('templates=ttmp-zzz'), []);
    assert.deepEqual(await w.found('withoutTemplate=true'), ['Review CALL notes', 'Write letter']);
    assert.deepEqual(await w.found('withoutTemplate=TRUE'), ['Review CALL notes', 'Write letter']);
    assert.deepEqual(await w.found('withoutTemplate=false'), ALL);
    assert.deepEqual(await w.found('templates=ttmp-a&withoutTemplate=true'), ['Call Ada', 'Review CALL notes', 'Write letter']);
  });

  test('assigneeIds, patientIds, statuses and priorities, with their deprecated singular names merged in', async () => {
    const w = await world();
    assert.deepEqual(await w.found(`assigneeIds=${w.nurse.id}`), ['Call Ada', 'Review CALL notes']);
    assert.deepEqual(await w.found(`assigneeIds=${w.nurse.id},${w.doctor.id}`), ALL);
    assert.deepEqual(await w.found(`assigneeId=${w.doctor.id}`), ['Order labs', 'Write letter']);
    assert.deepEqual(await w.found(`assigneeId=${w.doctor.id}&assigneeIds=${w.nurse.id}`), ALL);

    assert.deepEqual(await w.found(`patientIds=${w.p1.id}`), ['Call Ada']);
    assert.deepEqual(await w.found(`patientId=${w.p2.id}`), ['Order labs']);
    assert.deepEqual(await w.found(`patientIds=${w.p1.id}&patientId=${w.p2.id}`), ['Call Ada', 'Order labs']);

    assert.deepEqual(await w.found('statuses=TODO,COMPLETED'), ['Call Ada', 'Write letter']);
    assert.deepEqual(await w.found('status=CANCELED'), ['Review CALL notes']);
    assert.deepEqual(await w.found('status=TODO&statuses=CANCELED'), ['Call Ada', 'Review CALL notes']);

    assert.deepEqual(await w.found('priorities=URGENT'), ['Order labs']);
    assert.deepEqual(await w.found('priority=LOW'), ['Call Ada']);
    assert.deepEqual(await w.found('priorities=HIGH&priority=LOW'), ['Call Ada', 'Write letter']);

    assert.deepEqual(await w.found(`assigneeIds=${w.nurse.id}&statuses=TODO`), ['Call Ada'], 'filters combine with AND');
  });

  test('dueBefore, dueAfter and dueDate (the UTC day)', async () => {
    const w = await world();
    assert.deepEqual(await w.found('dueBefore=2030-01-02T00:00:00Z'), ['Call Ada']);
    assert.deepEqual(await w.found('dueAfter=2030-01-02T00:00:00Z'), ['Order labs', 'Write letter']);
    assert.deepEqual(await w.found('dueAfter=2030-01-01T00:00:00Z&dueBefore=2030-01-03T00:00:00Z'), ['Call Ada', 'Order labs']);
    assert.deepEqual(await w.found('dueDate=2030-01-02'), ['Order labs']);
    assert.deepEqual(await w.found('dueDate=2030-01-02T15:00:00Z'), ['Order labs']);
    assert.deepEqual(await w.found('dueDate=2030-01-03'), ['Write letter'], 'midnight belongs to the day it starts');
    assert.deepEqual(await w.found(`dueDate=${encodeURIComponent('2030-01-01T23:00:00-05:00')}`), ['Order labs'], 'the UTC day');
    assert.deepEqual(await w.found('dueDate=2031-01-01'), []);
  });

  test('authorId and watcherId', async () => {
    const w = await world();
    assert.deepEqual(await w.found(`authorId=${w.doctor.id}`), ['Review CALL notes']);
    assert.deepEqual(await w.found(`authorId=${w.t.adminClient.id}`), ['Call Ada', 'Order labs', 'Write letter']);
    assert.deepEqual(await w.found(`watcherId=${w.nurse.id}`), ['Order labs']);
    assert.deepEqual(await w.found(`watcherId=${w.doctor.id}`), []);
  });

  test('search matches name or description in any case; description only the description; wildcards are literal', async () => {
    const w = await world();
    assert.deepEqual(await w.found('search=call'), ['Call Ada', 'Review CALL notes']);
    assert.deepEqual(await w.found('search=HBA1C'), ['Order labs'], 'in the description');
    assert.deepEqual(await w.found('search=%25'), ['Call Ada'], 'a literal %');
    assert.deepEqual(await w.found('search=_'), ['Order labs'], 'a literal _');
    assert.deepEqual(await w.found('search=letter'), ['Write letter']);
    assert.deepEqual(await w.found('description=call'), [], 'names are not searched');
    assert.deepEqual(await w.found('description=DOSE'), ['Call Ada']);
    assert.deepEqual(await w.found('description=a1c_p'), ['Order labs']);
    assert.deepEqual(await w.found('search=zzz'), []);
    // A changed description is searched at once.
    await w.t.api.patch(`${w.t.base}/tasks/${w.t3.id}`, { description: 'Zebra crossing' });
    assert.deepEqual(await w.found('search=zebra'), ['Write letter']);
    await w.t.api.patch(`${w.t.base}/tasks/${w.t3.id}`, { name: 'Quokka' });
    assert.deepEqual(await w.found('search=quokka'), ['Quokka']);
    assert.deepEqual(await w.found('search=zebra'), ['Quokka'], 'the description is kept when only the name changes');
  });

  test('sorts by priority in order of urgency, not alphabetically', async () => {
    const w = await world();
    assert.deepEqual(await w.names('sort=priority,asc'), ['Call Ada', 'Review CALL notes', 'Write letter', 'Order labs']);
    assert.deepEqual(await w.names('sort=priority,desc'), ['Order labs', 'Write letter', 'Review CALL notes', 'Call Ada']);
    await w.t.api.patch(`${w.t.base}/tasks/${w.t1.id}`, { priority: 'URGENT' });
    assert.deepEqual((await w.names('sort=priority,desc')).slice(0, 2).sort(), ['Call Ada', 'Order labs']);
  });

  test('sorts by name, dueDate, status, createdAt and updatedAt; other fields are 400 INVALID_SORT', async () => {
    const w = await world();
    assert.deepEqual(await w.names('sort=name,asc'), ALL);
    assert.deepEqual(await w.names('sort=name,desc'), [...ALL].reverse());
    assert.deepEqual(await w.names('sort=dueDate,asc'), ['Call Ada', 'Order labs', 'Write letter', 'Review CALL notes']);
    assert.deepEqual(await w.names('sort=dueDate,desc'), ['Review CALL notes', 'Write letter', 'Order labs', 'Call Ada']);
    assert.deepEqual(await w.names('sort=status'), ['Review CALL notes', 'Write letter', 'Order labs', 'Call Ada']);
    assert.deepEqual(await w.names('sort=createdAt,asc'), ['Call Ada', 'Order labs', 'Write letter', 'Review CALL notes']);
    await w.t.api.patch(`${w.t.base}/tasks/${w.t2.id}`, { description: 'touched' });
    assert.equal((await w.names('sort=updatedAt,desc'))[0], 'Order labs');
    for (const sort of ['description,asc', 'assignee,asc', 'name,sideways']) {
      assertCode(await w.t.api.get(`${w.t.base}/tasks?sort=${sort}`), 400, 'INVALID_SORT', sort);
    }
  });

  test('pages', async () => {
    const w = await world();
    const second = await w.list('size=3&page=1');
    assert.deepEqual(
      second.body.data.map((task: { name: string }) => task.name),
      ['Call Ada'],
    );
    assert.deepEqual(second.body.metaInfo, {
      page: 1,
      pageSize: 3,
      totalElements: 4,
      numberOfElements: 1,
      totalPages: 2,
      firstPage: false,
      lastPage: true,
    });
    assert.deepEqual((await w.list('page=5')).body.data, []);
  });

  test('001: with no filter a user sees the tasks it is assignee or watcher of; an API client sees all', async () => {
    const w = await world();
    assert.deepEqual(await w.found('', w.asNurse), ['Call Ada', 'Order labs', 'Review CALL notes']);
    assert.deepEqual(await w.found('', w.asDoctor), ['Order labs', 'Write letter'], 'writing a task is not enough');
    assert.deepEqual(await w.found('page=0&size=50&sort=name,asc&unknown=1', w.asNurse), [
      'Call Ada',
      'Order labs',
      'Review CALL notes',
    ]);
    assert.deepEqual(
      await w.found('search=', w.asNurse),
      ['Call Ada', 'Order labs', 'Review CALL notes'],
      'an empty filter is none',
    );
    assert.deepEqual(await w.found('statuses=COMPLETED', w.asNurse), ['Write letter'], 'any filter searches every task');
    assert.deepEqual(await w.found(`assigneeId=${w.doctor.id}`, w.asNurse), ['Order labs', 'Write letter']);
    assert.deepEqual(await w.found(''), ALL);
    assert.deepEqual(await w.found('unknown=1'), ALL, 'unknown parameters are ignored');
  });

  test('400 for malformed filters and paging', async () => {
    const w = await world();
    for (const query of [
      'statuses=DONE',
      'status=todo',
      'priorities=CRITICAL',
      'priority=NONE',
      'assigneeIds=nurse',
      'assigneeId=nurse',
      'patientIds=1,2',
      'patientId=x',
      'dueBefore=yesterday',
      'dueAfter=2030-13-01T00:00:00Z',
      'dueDate=soon',
      'authorId=me',
      'watcherId=you',
      'withoutTemplate=maybe',
      'size=0',
      'size=1001',
      'page=-1',
      'page=1.5',
    ]) {
      assertCode(await w.t.api.get(`${w.t.base}/tasks?${query}`), 400, 'VALIDATION_ERROR', query);
    }
  });

  test('401 without a token, 403 without TASK_READ', async () => {
    const t = await createTestTenant(app);
    assertCode(await t.anonymous.get(`${t.base}/tasks`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const denied = await (await t.apiWith(['TASK_UPDATE'])).get(`${t.base}/tasks`);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'TASK_READ');
    assert.equal((await (await t.apiWith(['TASK_READ'])).get(`${t.base}/tasks`)).status, 200);
  });
});
