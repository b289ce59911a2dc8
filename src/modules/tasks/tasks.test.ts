import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { systemContext } from '../../http/context.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestTenant,
  isoMillis,
  newInstance,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
  uuidShape,
} from '../../test/harness.ts';
import { applyFormation } from '../formation/operations.ts';

/** Single-task routes: POST /tasks, GET|PATCH /tasks/{id}, bulk PATCH /tasks, watchers, comments, tenancy. */

const app = await startApp();
const PASSWORD = 'a long enough password';

const taskKeys = [
  'assignee',
  'comments',
  'createdAt',
  'createdBy',
  'createdByName',
  'createdType',
  'description',
  'dueDate',
  'goalId',
  'hiddenPhi',
  'id',
  'name',
  'patient',
  'priority',
  'sourceId',
  'sourceType',
  'status',
  'templateName',
  'updatedAt',
  'updatedBy',
  'updatedByName',
  'watchers',
  'watchersType',
].sort();

async function createUser(t: TestTenant, username: string, extra: Record<string, unknown> = {}) {
  const response = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Grace',
    lastName: username,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox', primaryRole: true }],
    ...extra,
  });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; username: string };
}

/** A user caller: the user gets a password and signs in (DECISIONS §4). */
async function loginAs(t: TestTenant, username: string): Promise<Api> {
  assert.equal((await t.api.put(`${t.admin}/users/${username}/password`, { password: PASSWORD })).status, 200);
  const login = await t.anonymous.post('/auth/token', { tenantName: t.tenant.name, username, password: PASSWORD });
  assert.equal(login.status, 200, login.text);
  return new Api(app.server, login.body.token);
}

async function createTask(t: TestTenant, assigneeId: string, body: Record<string, unknown> = {}, api = t.api) {
  const response = await api.post(`${t.base}/tasks`, {
    name: 'Call the patient',
    status: 'TODO',
    priority: 'MEDIUM',
    assignee: { id: assigneeId },
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

async function taskCount(t: TestTenant): Promise<number> {
  return (await t.api.get(`${t.base}/tasks?size=1000`)).body.metaInfo.totalElements;
}

describe('POST /tasks', () => {
  test('creates a task with every key, the references resolved to names', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const watcher = await createUser(t, 'watcher', { firstName: null, lastName: null });
    const patient = await createPatient(t);
    const sourceId = randomUUID();
    const response = await t.api.post(`${t.base}/tasks`, {
      name: 'Call the patient',
      description: 'About the new prescription',
      dueDate: '2030-01-02T03:04:05+02:00',
      status: 'IN_PROGRESS',
      priority: 'HIGH',
      assignee: { id: nurse.id },
      patient: { id: patient.id },
      watchers: [{ id: watcher.id }, { id: watcher.id }],
      templateName: 'ttmp-call',
      createdType: 'AUTOMATION',
      sourceId,
      sourceType: 'ASSESSMENT',
      hiddenPhi: true,
    });
    assert.equal(response.status, 201, response.text);
    const task = response.body;
    assert.deepEqual(Object.keys(task).sort(), taskKeys);
    assert.match(task.id, uuidShape);
    assert.equal(task.name, 'Call the patient');
    assert.equal(task.description, 'About the new prescription');
    assert.equal(task.dueDate, '2030-01-02T01:04:05.000Z');
    assert.equal(task.status, 'IN_PROGRESS');
    assert.equal(task.priority, 'HIGH');
    assert.deepEqual(task.patient, { id: patient.id, name: 'Ada Lovelace' });
    assert.deepEqual(task.assignee, { id: nurse.id, name: 'Grace nurse', enabled: true });
    assert.deepEqual(task.watchers, [{ id: watcher.id, name: 'watcher', enabled: true }], 'named by username; listed once');
    assert.deepEqual(task.comments, []);
    assert.match(task.createdAt, isoMillis);
    assert.equal(task.createdAt, task.updatedAt);
    assert.equal(task.createdBy, t.adminClient.id);
    assert.equal(task.updatedBy, t.adminClient.id);
    assert.equal(task.createdByName, `API_CLIENT:${t.adminClient.name}`);
    assert.equal(task.updatedByName, task.createdByName);
    assert.equal(task.goalId, null);
    assert.equal(task.templateName, 'ttmp-call');
    assert.equal(task.createdType, 'AUTOMATION');
    assert.equal(task.sourceId, sourceId);
    assert.equal(task.sourceType, 'ASSESSMENT');
    assert.equal(task.hiddenPhi, true);
    assert.equal(task.watchersType, 'POINT_OF_CONTACT');
    assert.deepEqual((await t.api.get(`${t.base}/tasks/${task.id}`)).body, task);
  });

  test('optional fields default: no patient, no watchers, hiddenPhi false, watchersType POINT_OF_CONTACT', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    assert.equal(task.description, null);
    assert.equal(task.dueDate, null);
    assert.equal(task.patient, null);
    assert.deepEqual(task.watchers, []);
    assert.equal(task.hiddenPhi, false);
    assert.equal(task.watchersType, 'POINT_OF_CONTACT');
    assert.equal(task.templateName, null);
    assert.equal(task.createdType, null);
    assert.equal(task.sourceId, null);
    assert.equal(task.sourceType, null);
    const blanks = await createTask(t, nurse.id, { dueDate: '', sourceId: '', watchersType: '', patient: null, watchers: null });
    assert.equal(blanks.dueDate, null, '"" reads as null');
    assert.equal(blanks.sourceId, null);
    assert.equal(blanks.watchersType, 'POINT_OF_CONTACT');
  });

  test('read-only and unknown keys sent back are ignored (DECISIONS §10)', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const first = await createTask(t, nurse.id);
    const copy = await createTask(t, nurse.id, {
      ...first,
      id: randomUUID(),
      goalId: randomUUID(),
      createdAt: '2000-01-01T00:00:00.000Z',
      createdBy: randomUUID(),
      createdByName: 'someone',
      comments: [],
      somethingElse: { nested: true },
    });
    assert.notEqual(copy.id, first.id);
    assert.equal(copy.goalId, null);
    assert.notEqual(copy.createdAt, '2000-01-01T00:00:00.000Z');
    assert.equal(copy.createdBy, t.adminClient.id);
    assert.deepEqual(copy.assignee, first.assignee);
  });

  test('001: a comment given at creation is attributed to the patient when the task has one', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const patient = await createPatient(t, { firstName: 'Mary', lastName: 'Shelley' });
    const task = await createTask(t, nurse.id, {
      patient: { id: patient.id },
      comments: [{ text: 'First' }, { text: 'Second' }],
    });
    assert.equal(task.comments.length, 2);
    assert.deepEqual(
      task.comments.map((c: { text: string }) => c.text),
      ['First', 'Second'],
      'in the order given',
    );
    for (const comment of task.comments) {
      assert.deepEqual(Object.keys(comment).sort(), ['author', 'createdAt', 'id', 'patient', 'text', 'user']);
      assert.match(comment.id, uuidShape);
      assert.match(comment.createdAt, isoMillis);
      assert.deepEqual(comment.author, { id: patient.id, name: 'Mary Shelley', enabled: true });
      assert.deepEqual(comment.patient, { id: patient.id, name: 'Mary Shelley' });
      assert.equal(comment.user, null);
    }
  });

  test('001: without a patient, a creation comment is attributed to the API client that calls', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id, { comments: [{ text: 'From the integration' }] });
    const [comment] = task.comments;
    assert.deepEqual(comment.author, { id: t.adminClient.id, name: `API_CLIENT:${t.adminClient.name}`, enabled: true });
    assert.equal(comment.patient, null);
    assert.equal(comment.user, null);
    assert.equal(comment.text, 'From the integration');
  });

  test('without a patient, a creation comment by a user caller is the user’s', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const asNurse = await loginAs(t, 'nurse');
    const task = await createTask(t, nurse.id, { comments: [{ text: 'Mine' }] }, asNurse);
    const [comment] = task.comments;
    assert.deepEqual(comment.author, { id: nurse.id, name: 'Grace nurse', enabled: true });
    assert.deepEqual(comment.user, { id: nurse.id, name: 'Grace nurse' });
    assert.equal(comment.patient, null);
    assert.equal(task.createdBy, nurse.id);
    assert.equal(task.createdByName, 'Grace nurse');
  });

  test('DECISIONS §1: dueDate reads any ISO 8601 date-time; without an offset it is UTC', async () => {
    const t = await createTestTenant(app);
    const user = await createUser(t, 'dora');
    const forms: [string, string][] = [
      ['2030-01-02T10:00:00', '2030-01-02T10:00:00.000Z'],
      ['2030-01-02T10:00Z', '2030-01-02T10:00:00.000Z'],
      ['2030-01-02T10:00:00+0530', '2030-01-02T04:30:00.000Z'],
      ['2030-01-02T10:00:00.5-02:00', '2030-01-02T12:00:00.500Z'],
      ['20300102T100000Z', '2030-01-02T10:00:00.000Z'],
      ['2030-01-02', '2030-01-02T00:00:00.000Z'],
    ];
    for (const [sent, stored] of forms) {
      const task = await createTask(t, user.id, { dueDate: sent });
      assert.equal(task.dueDate, stored, sent);
    }
    for (const bad of ['2030-02-30T10:00:00Z', '2030-01-02T25:00Z', 'tomorrow']) {
      assertValidation(
        await t.api.post(`${t.base}/tasks`, { name: 'x', status: 'TODO', priority: 'LOW', dueDate: bad }),
        'body.dueDate',
        bad,
      );
    }
    const due = await t.api.get(`${t.base}/tasks?dueAfter=2030-01-02T09:59&dueBefore=2030-01-02T10:01`);
    assert.equal(due.status, 200, due.text);
    assert.equal(due.body.metaInfo.totalElements, 3, 'the three at 10:00 UTC');
  });

  test('400 for missing required fields and wrong types; nothing is created', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const ok = { name: 'N', status: 'TODO', priority: 'LOW', assignee: { id: nurse.id } };
    const cases: [string, Record<string, unknown>, string][] = [
      ['no name', { ...ok, name: undefined }, 'body.name'],
      ['no status', { ...ok, status: undefined }, 'body.status'],
      ['no priority', { ...ok, priority: undefined }, 'body.priority'],
      ['no assignee', { ...ok, assignee: undefined }, 'body.assignee'],
      ['a null assignee', { ...ok, assignee: null }, 'body.assignee'],
      ['a number for name', { ...ok, name: 5 }, 'body.name'],
      ['an empty name', { ...ok, name: '' }, 'body.name'],
      ['an unknown status', { ...ok, status: 'DONE' }, 'body.status'],
      ['a lower-case status', { ...ok, status: 'todo' }, 'body.status'],
      ['an unknown priority', { ...ok, priority: 'CRITICAL' }, 'body.priority'],
      ['an assignee that is a string', { ...ok, assignee: nurse.id }, 'body.assignee'],
      ['an assignee id that is not a uuid', { ...ok, assignee: { id: 'nurse' } }, 'body.assignee'],
      ['a bad dueDate', { ...ok, dueDate: 'tomorrow' }, 'body.dueDate'],
      ['a number for description', { ...ok, description: 7 }, 'body.description'],
      ['a string for hiddenPhi', { ...ok, hiddenPhi: 'yes' }, 'body.hiddenPhi'],
      ['watchers not a list', { ...ok, watchers: { id: nurse.id } }, 'body.watchers'],
      ['a watcher without a uuid', { ...ok, watchers: [{ id: 'x' }] }, 'body.watchers'],
      ['a comment without text', { ...ok, comments: [{}] }, 'body.comments'],
      ['a comment with a number', { ...ok, comments: [{ text: 5 }] }, 'body.comments'],
      ['a patient id that is not a uuid', { ...ok, patient: { id: 'p' } }, 'body.patient'],
      ['a bad sourceId', { ...ok, sourceId: 'abc' }, 'body.sourceId'],
    ];
    for (const [label, body, path] of cases) assertValidation(await t.api.post(`${t.base}/tasks`, body), path, label);
    assertCode(
      await t.api.request('POST', `${t.base}/tasks`, '{"name":', { 'content-type': 'application/json' }),
      400,
      'MALFORMED_JSON',
    );
    assert.equal(await taskCount(t), 0);
  });

  test('400 when the assignee or a watcher is not a live user, or the patient not of this instance', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const gone = await createUser(t, 'gone');
    assert.equal((await t.api.delete(`${t.admin}/users/gone`)).status, 200);
    const other = await createTestTenant(app);
    const stranger = await createUser(other, 'stranger');
    const foreignPatient = await createPatient(other);
    const live = await newInstance(app, t.tenant, 'live');
    await applyFormation(systemContext(app.services, t.tenant, live), testFormation());
    const liveApi = new Api(app.server, (await t.clientWithRole('admin', { ...live, currentFormationVersion: 1 })).token);
    const livePatient = (await liveApi.post(`/${t.tenant.name}/live/patients`, { firstName: 'L', lastName: 'P' })).body;

    const ok = { name: 'N', status: 'TODO', priority: 'LOW', assignee: { id: nurse.id } };
    const cases: [string, Record<string, unknown>, string][] = [
      ['an unknown assignee', { ...ok, assignee: { id: randomUUID() } }, 'body.assignee.id'],
      ['a deleted assignee', { ...ok, assignee: { id: gone.id } }, 'body.assignee.id'],
      ["another tenant's user", { ...ok, assignee: { id: stranger.id } }, 'body.assignee.id'],
      ['an unknown watcher', { ...ok, watchers: [{ id: randomUUID() }] }, 'body.watchers'],
      ['an unknown patient', { ...ok, patient: { id: randomUUID() } }, 'body.patient.id'],
      ["another tenant's patient", { ...ok, patient: { id: foreignPatient.id } }, 'body.patient.id'],
      ["another instance's patient", { ...ok, patient: { id: livePatient.id } }, 'body.patient.id'],
    ];
    for (const [label, body, path] of cases) assertValidation(await t.api.post(`${t.base}/tasks`, body), path, label);
    assert.equal(await taskCount(t), 0);
  });

  test('401 without a token, 403 without TASK_UPDATE', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const body = { name: 'N', status: 'TODO', priority: 'LOW', assignee: { id: nurse.id } };
    assertCode(await t.anonymous.post(`${t.base}/tasks`, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['TASK_READ']);
    const denied = await reader.post(`${t.base}/tasks`, body);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'TASK_UPDATE');
    assert.equal(await taskCount(t), 0);
    const writer = await t.apiWith(['TASK_UPDATE']);
    assert.equal((await writer.post(`${t.base}/tasks`, body)).status, 201);
  });

  test('a create is audited as TASK_CREATED with the patient', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const patient = await createPatient(t);
    const task = await createTask(t, nurse.id, { patient: { id: patient.id }, description: 'd' });
    const events = (await auditOf(t, { entityId: task.id })).filter((e) => e.action === 'TASK_CREATED');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.entityType, 'TASK');
    assert.equal(events[0]!.patientId, patient.id);
    assert.ok(events[0]!.changedFields?.includes('description'));
    assert.ok(!events[0]!.changedFields?.includes('id'));
  });
});

describe('GET /tasks/{id}', () => {
  test('reads a task; 404 TASK_NOT_FOUND for an unknown id; 400 for a malformed one', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    const read = await t.api.get(`${t.base}/tasks/${task.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, task);
    assertCode(await t.api.get(`${t.base}/tasks/${randomUUID()}`), 404, 'TASK_NOT_FOUND');
    assertValidation(await t.api.get(`${t.base}/tasks/not-a-uuid`), 'params.taskId');
  });

  test('401 without a token, 403 without TASK_READ', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    assertCode(await t.anonymous.get(`${t.base}/tasks/${task.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const writer = await t.apiWith(['TASK_UPDATE']);
    const denied = await writer.get(`${t.base}/tasks/${task.id}`);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'TASK_READ');
    assert.equal((await (await t.apiWith(['TASK_READ'])).get(`${t.base}/tasks/${task.id}`)).status, 200);
  });

  test('a user’s current name and enabled flag are shown', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id, { watchers: [{ id: nurse.id }] });
    assert.equal((await t.api.patch(`${t.admin}/users/nurse`, { firstName: 'Florence', enabled: false })).status, 200);
    const read = (await t.api.get(`${t.base}/tasks/${task.id}`)).body;
    assert.deepEqual(read.assignee, { id: nurse.id, name: 'Florence nurse', enabled: false });
    assert.deepEqual(read.watchers, [{ id: nurse.id, name: 'Florence nurse', enabled: false }]);
  });
});

describe('PATCH /tasks/{id}', () => {
  test('changes only the fields present', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const doctor = await createUser(t, 'doctor');
    const patient = await createPatient(t);
    const task = await createTask(t, nurse.id, {
      description: 'Old',
      dueDate: '2030-01-01T00:00:00.000Z',
      patient: { id: patient.id },
      watchers: [{ id: nurse.id }],
    });
    const response = await t.api.patch(`${t.base}/tasks/${task.id}`, { status: 'COMPLETED', priority: 'URGENT' });
    assert.equal(response.status, 200, response.text);
    const patched = response.body;
    assert.equal(patched.status, 'COMPLETED');
    assert.equal(patched.priority, 'URGENT');
    const { status: _s, priority: _p, updatedAt: _u, ...rest } = patched;
    const { status: _s2, priority: _p2, updatedAt: _u2, ...before } = task;
    assert.deepEqual(rest, before);
    assert.ok(patched.updatedAt >= task.updatedAt);

    const moved = (
      await t.api.patch(`${t.base}/tasks/${task.id}`, {
        name: 'Renamed',
        description: null,
        dueDate: '',
        assignee: { id: doctor.id, name: 'ignored', enabled: false },
        patient: null,
        watchers: [{ id: doctor.id }],
        hiddenPhi: true,
        templateName: 'ttmp-x',
        watchersType: 'ASSIGNEE',
      })
    ).body;
    assert.equal(moved.name, 'Renamed');
    assert.equal(moved.description, null);
    assert.equal(moved.dueDate, null);
    assert.deepEqual(moved.assignee, { id: doctor.id, name: 'Grace doctor', enabled: true });
    assert.equal(moved.patient, null);
    assert.deepEqual(moved.watchers, [{ id: doctor.id, name: 'Grace doctor', enabled: true }], 'watchers are replaced');
    assert.equal(moved.hiddenPhi, true);
    assert.equal(moved.templateName, 'ttmp-x');
    assert.equal(moved.watchersType, 'ASSIGNEE');
    assert.deepEqual((await t.api.get(`${t.base}/tasks/${task.id}`)).body, moved);
  });

  test('a whole task read earlier can be sent back; assignee null unassigns', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id, { comments: [{ text: 'kept' }] });
    const same = await t.api.patch(`${t.base}/tasks/${task.id}`, { ...task, comments: [{ text: 'not added here' }] });
    assert.equal(same.status, 200, same.text);
    const { updatedAt: _a, ...after } = same.body;
    const { updatedAt: _b, ...before } = task;
    assert.deepEqual(after, before);
    const unassigned = await t.api.patch(`${t.base}/tasks/${task.id}`, { assignee: null });
    assert.equal(unassigned.body.assignee, null);
  });

  test('a user caller becomes updatedBy', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    const asNurse = await loginAs(t, 'nurse');
    const patched = (await asNurse.patch(`${t.base}/tasks/${task.id}`, { status: 'IN_PROGRESS' })).body;
    assert.equal(patched.updatedBy, nurse.id);
    assert.equal(patched.updatedByName, 'Grace nurse');
    assert.equal(patched.createdBy, t.adminClient.id);
  });

  test('400 for wrong types and unknown references; nothing changes', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    const cases: [string, Record<string, unknown>, string][] = [
      ['a number for name', { name: 5 }, 'body.name'],
      ['a null name', { name: null }, 'body.name'],
      ['an unknown status', { status: 'DONE' }, 'body.status'],
      ['a null status', { status: null }, 'body.status'],
      ['an unknown priority', { priority: 'CRITICAL' }, 'body.priority'],
      ['a bad dueDate', { dueDate: '2030-13-01' }, 'body.dueDate'],
      ['an assignee that is a string', { assignee: 'x' }, 'body.assignee'],
      ['an unknown assignee', { assignee: { id: randomUUID() } }, 'body.assignee.id'],
      ['an unknown patient', { patient: { id: randomUUID() } }, 'body.patient.id'],
      ['an unknown watcher', { watchers: [{ id: randomUUID() }] }, 'body.watchers'],
      ['a string for hiddenPhi', { hiddenPhi: 'true' }, 'body.hiddenPhi'],
    ];
    for (const [label, body, path] of cases) assertValidation(await t.api.patch(`${t.base}/tasks/${task.id}`, body), path, label);
    assert.deepEqual((await t.api.get(`${t.base}/tasks/${task.id}`)).body, task);
  });

  test('404 for a missing task, 401 without a token, 403 without TASK_UPDATE', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    assertCode(await t.api.patch(`${t.base}/tasks/${randomUUID()}`, { status: 'TODO' }), 404, 'TASK_NOT_FOUND');
    assertValidation(await t.api.patch(`${t.base}/tasks/nope`, { status: 'TODO' }), 'params.taskId');
    assertCode(await t.anonymous.patch(`${t.base}/tasks/${task.id}`, { status: 'COMPLETED' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['TASK_READ']);
    assertCode(await reader.patch(`${t.base}/tasks/${task.id}`, { status: 'COMPLETED' }), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${t.base}/tasks/${task.id}`)).body.status, 'TODO');
  });

  test('an update is audited as TASK_UPDATED naming the fields', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const patient = await createPatient(t);
    const task = await createTask(t, nurse.id, { patient: { id: patient.id } });
    await t.api.patch(`${t.base}/tasks/${task.id}`, { status: 'COMPLETED', name: 'x', unknownKey: 1 });
    const events = await auditOf(t, { patientId: patient.id, action: 'TASK_UPDATED' });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.entityId, task.id);
    assert.deepEqual(events[0]!.changedFields?.sort(), ['name', 'status']);
  });
});

describe('PATCH /tasks (bulk status)', () => {
  test('sets the status of every listed task and answers them in order', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const a = await createTask(t, nurse.id, { name: 'A' });
    const b = await createTask(t, nurse.id, { name: 'B' });
    const c = await createTask(t, nurse.id, { name: 'C' });
    const response = await t.api.patch(`${t.base}/tasks`, { taskIds: [b.id, a.id, b.id], status: 'COMPLETED' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      response.body.map((task: { id: string }) => task.id),
      [b.id, a.id],
    );
    for (const task of response.body) {
      assert.deepEqual(Object.keys(task).sort(), taskKeys);
      assert.equal(task.status, 'COMPLETED');
    }
    assert.equal((await t.api.get(`${t.base}/tasks/${c.id}`)).body.status, 'TODO');
    const events = await auditOf(t, { action: 'TASK_UPDATED' });
    assert.deepEqual(events.map((e) => e.entityId).sort(), [a.id, b.id].sort());
    assert.ok(events.every((e) => e.changedFields?.join() === 'status'));
  });

  test('all or nothing: an unknown id is a 404 naming it, and no task changes', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const a = await createTask(t, nurse.id);
    const other = await createTestTenant(app);
    const foreign = await createTask(other, (await createUser(other, 'x')).id);
    const ghost = randomUUID();
    const response = await t.api.patch(`${t.base}/tasks`, { taskIds: [a.id, ghost, foreign.id], status: 'CANCELED' });
    assertCode(response, 404, 'TASK_NOT_FOUND');
    assert.deepEqual(response.body[0].details.ids.sort(), [ghost, foreign.id].sort());
    assert.equal((await t.api.get(`${t.base}/tasks/${a.id}`)).body.status, 'TODO');
    assert.equal((await other.api.get(`${other.base}/tasks/${foreign.id}`)).body.status, 'TODO');
    assert.equal((await auditOf(t, { action: 'TASK_UPDATED' })).length, 0);
  });

  test('400 for an empty list, a missing or unknown status, malformed ids; 401; 403', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const a = await createTask(t, nurse.id);
    const cases: [string, unknown, string][] = [
      ['no ids', { taskIds: [], status: 'TODO' }, 'body.taskIds'],
      ['no taskIds key', { status: 'TODO' }, 'body.taskIds'],
      ['no status', { taskIds: [a.id] }, 'body.status'],
      ['an unknown status', { taskIds: [a.id], status: 'DONE' }, 'body.status'],
      ['a malformed id', { taskIds: ['x'], status: 'TODO' }, 'body.taskIds'],
      ['ids not a list', { taskIds: a.id, status: 'TODO' }, 'body.taskIds'],
    ];
    for (const [label, body, path] of cases) assertValidation(await t.api.patch(`${t.base}/tasks`, body), path, label);
    assertCode(
      await t.anonymous.patch(`${t.base}/tasks`, { taskIds: [a.id], status: 'COMPLETED' }),
      401,
      'NOT_VALID_JSON_WEB_TOKEN',
    );
    const reader = await t.apiWith(['TASK_READ']);
    assertCode(await reader.patch(`${t.base}/tasks`, { taskIds: [a.id], status: 'COMPLETED' }), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${t.base}/tasks/${a.id}`)).body.status, 'TODO');
  });
});

describe('watchers', () => {
  test('PATCH adds a watcher once; DELETE removes it with an empty 200', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const doctor = await createUser(t, 'doctor');
    const patient = await createPatient(t);
    const task = await createTask(t, nurse.id, { patient: { id: patient.id } });
    const added = await t.api.patch(`${t.base}/tasks/${task.id}/watchers`, { id: doctor.id });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(Object.keys(added.body).sort(), taskKeys);
    assert.deepEqual(added.body.watchers, [{ id: doctor.id, name: 'Grace doctor', enabled: true }]);
    const again = await t.api.patch(`${t.base}/tasks/${task.id}/watchers`, { id: doctor.id, name: 'sent back' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, added.body, 'adding twice changes nothing');
    await t.api.patch(`${t.base}/tasks/${task.id}/watchers`, { id: nurse.id });
    const removed = await t.api.delete(`${t.base}/tasks/${task.id}/watchers/${doctor.id}`);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    assert.deepEqual(
      (await t.api.get(`${t.base}/tasks/${task.id}`)).body.watchers.map((w: { id: string }) => w.id),
      [nurse.id],
    );
    assertCode(await t.api.delete(`${t.base}/tasks/${task.id}/watchers/${doctor.id}`), 404, 'TASK_WATCHER_NOT_FOUND');
    const events = await auditOf(t, { patientId: patient.id, entityType: 'TASK' });
    assert.deepEqual(events.map((e) => e.action).sort(), [
      'TASK_CREATED',
      'TASK_WATCHER_ADDED',
      'TASK_WATCHER_ADDED',
      'TASK_WATCHER_REMOVED',
    ]);
  });

  test('400 for a bad or unknown user, 404 for a missing task, 401, 403', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    const path = `${t.base}/tasks/${task.id}/watchers`;
    assertValidation(await t.api.patch(path, {}), 'body.id');
    assertValidation(await t.api.patch(path, { id: 'x' }), 'body.id');
    assertValidation(await t.api.patch(path, { id: 5 }), 'body.id');
    assertValidation(await t.api.patch(path, { id: randomUUID() }), 'body.id');
    assertValidation(await t.api.delete(`${path}/not-a-uuid`), 'params.watcherId');
    assertCode(await t.api.patch(`${t.base}/tasks/${randomUUID()}/watchers`, { id: nurse.id }), 404, 'TASK_NOT_FOUND');
    assertCode(await t.api.delete(`${t.base}/tasks/${randomUUID()}/watchers/${nurse.id}`), 404, 'TASK_NOT_FOUND');
    assertCode(await t.anonymous.patch(path, { id: nurse.id }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.delete(`${path}/${nurse.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['TASK_READ']);
    assertCode(await reader.patch(path, { id: nurse.id }), 403, 'ACCESS_DENIED');
    await t.api.patch(path, { id: nurse.id });
    assertCode(await reader.delete(`${path}/${nurse.id}`), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${t.base}/tasks/${task.id}`)).body.watchers.length, 1);
  });
});

describe('comments', () => {
  test('PATCH adds a comment by the caller about the task’s patient; DELETE removes it with an empty 200', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const patient = await createPatient(t);
    const task = await createTask(t, nurse.id, { patient: { id: patient.id } });
    const byClient = await t.api.patch(`${t.base}/tasks/${task.id}/comments`, { text: 'From the client' });
    assert.equal(byClient.status, 200, byClient.text);
    const [first] = byClient.body.comments;
    assert.equal(first.text, 'From the client');
    assert.deepEqual(first.author, { id: t.adminClient.id, name: `API_CLIENT:${t.adminClient.name}`, enabled: true });
    assert.deepEqual(first.patient, { id: patient.id, name: 'Ada Lovelace' });
    assert.equal(first.user, null);

    const asNurse = await loginAs(t, 'nurse');
    const byUser = await asNurse.patch(`${t.base}/tasks/${task.id}/comments`, { text: 'From the nurse' });
    assert.equal(byUser.status, 200, byUser.text);
    assert.equal(byUser.body.comments.length, 2);
    const second = byUser.body.comments[1];
    assert.deepEqual(second.author, { id: nurse.id, name: 'Grace nurse', enabled: true });
    assert.deepEqual(second.user, { id: nurse.id, name: 'Grace nurse' });
    assert.deepEqual(second.patient, { id: patient.id, name: 'Ada Lovelace' });

    const removed = await t.api.delete(`${t.base}/tasks/${task.id}/comments/${first.id}`);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    assert.deepEqual(
      (await t.api.get(`${t.base}/tasks/${task.id}`)).body.comments.map((c: { id: string }) => c.id),
      [second.id],
    );
    assertCode(await t.api.delete(`${t.base}/tasks/${task.id}/comments/${first.id}`), 404, 'TASK_COMMENT_NOT_FOUND');
    const events = await auditOf(t, { patientId: patient.id, entityType: 'TASK' });
    assert.deepEqual(events.map((e) => e.action).sort(), [
      'TASK_COMMENT_ADDED',
      'TASK_COMMENT_ADDED',
      'TASK_COMMENT_DELETED',
      'TASK_CREATED',
    ]);
  });

  test('a comment is deleted only through its own task', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const a = await createTask(t, nurse.id, { comments: [{ text: 'on a' }] });
    const b = await createTask(t, nurse.id);
    assertCode(await t.api.delete(`${t.base}/tasks/${b.id}/comments/${a.comments[0].id}`), 404, 'TASK_COMMENT_NOT_FOUND');
    assert.equal((await t.api.get(`${t.base}/tasks/${a.id}`)).body.comments.length, 1);
  });

  test('400 for missing or wrong text, 404 for a missing task, 401, 403', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id, { comments: [{ text: 'x' }] });
    const path = `${t.base}/tasks/${task.id}/comments`;
    assertValidation(await t.api.patch(path, {}), 'body.text');
    assertValidation(await t.api.patch(path, { text: '' }), 'body.text');
    assertValidation(await t.api.patch(path, { text: 5 }), 'body.text');
    assertValidation(await t.api.delete(`${path}/nope`), 'params.commentId');
    assertCode(await t.api.patch(`${t.base}/tasks/${randomUUID()}/comments`, { text: 'x' }), 404, 'TASK_NOT_FOUND');
    assertCode(await t.api.delete(`${t.base}/tasks/${randomUUID()}/comments/${task.comments[0].id}`), 404, 'TASK_NOT_FOUND');
    assertCode(await t.anonymous.patch(path, { text: 'x' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.delete(`${path}/${task.comments[0].id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['TASK_READ']);
    assertCode(await reader.patch(path, { text: 'x' }), 403, 'ACCESS_DENIED');
    assertCode(await reader.delete(`${path}/${task.comments[0].id}`), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(`${t.base}/tasks/${task.id}`)).body, task);
  });
});

describe('tenant and instance isolation', () => {
  test("a token for tenant A is 403 on every task route of tenant B, and B's task is untouched", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const nurse = await createUser(b, 'nurse');
    const task = await createTask(b, nurse.id, { comments: [{ text: 'c' }], watchers: [{ id: nurse.id }] });
    const attempts: [string, () => Promise<Response>][] = [
      ['list', () => a.api.get(`${b.base}/tasks`)],
      ['create', () => a.api.post(`${b.base}/tasks`, { name: 'x', status: 'TODO', priority: 'LOW', assignee: { id: nurse.id } })],
      ['bulk', () => a.api.patch(`${b.base}/tasks`, { taskIds: [task.id], status: 'COMPLETED' })],
      ['read', () => a.api.get(`${b.base}/tasks/${task.id}`)],
      ['patch', () => a.api.patch(`${b.base}/tasks/${task.id}`, { status: 'COMPLETED' })],
      ['add watcher', () => a.api.patch(`${b.base}/tasks/${task.id}/watchers`, { id: nurse.id })],
      ['remove watcher', () => a.api.delete(`${b.base}/tasks/${task.id}/watchers/${nurse.id}`)],
      ['add comment', () => a.api.patch(`${b.base}/tasks/${task.id}/comments`, { text: 'x' })],
      ['delete comment', () => a.api.delete(`${b.base}/tasks/${task.id}/comments/${task.comments[0].id}`)],
    ];
    for (const [label, attempt] of attempts) assertCode(await attempt(), 403, 'TENANT_ACCESS_DENIED', label);
    assert.deepEqual((await b.api.get(`${b.base}/tasks/${task.id}`)).body, task);
    assert.equal(await taskCount(b), 1);
  });

  test("tenant B's tasks do not exist on tenant A's paths", async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const mine = await createTask(a, (await createUser(a, 'nurse')).id);
    const nurseB = await createUser(b, 'nurse');
    const theirs = await createTask(b, nurseB.id, { comments: [{ text: 'c' }], watchers: [{ id: nurseB.id }] });
    assertCode(await a.api.get(`${a.base}/tasks/${theirs.id}`), 404, 'TASK_NOT_FOUND');
    assertCode(await a.api.patch(`${a.base}/tasks/${theirs.id}`, { status: 'COMPLETED' }), 404, 'TASK_NOT_FOUND');
    assertCode(await a.api.patch(`${a.base}/tasks`, { taskIds: [theirs.id], status: 'COMPLETED' }), 404, 'TASK_NOT_FOUND');
    assertCode(await a.api.patch(`${a.base}/tasks/${theirs.id}/comments`, { text: 'x' }), 404, 'TASK_NOT_FOUND');
    assertCode(await a.api.delete(`${a.base}/tasks/${theirs.id}/comments/${theirs.comments[0].id}`), 404, 'TASK_NOT_FOUND');
    assertCode(await a.api.delete(`${a.base}/tasks/${theirs.id}/watchers/${nurseB.id}`), 404, 'TASK_NOT_FOUND');
    const list = await a.api.get(`${a.base}/tasks?size=1000`);
    assert.deepEqual(
      list.body.data.map((task: { id: string }) => task.id),
      [mine.id],
    );
    assert.deepEqual((await b.api.get(`${b.base}/tasks/${theirs.id}`)).body, theirs);
  });

  test("a second instance of the same tenant does not see the first's tasks", async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, 'nurse');
    const task = await createTask(t, nurse.id);
    const live = await newInstance(app, t.tenant, 'live');
    await applyFormation(systemContext(app.services, t.tenant, live), testFormation());
    const liveApi = new Api(app.server, (await t.clientWithRole('admin', { ...live, currentFormationVersion: 1 })).token);
    const liveBase = `/${t.tenant.name}/live`;
    assert.equal((await liveApi.get(`${liveBase}/tasks`)).body.metaInfo.totalElements, 0);
    assertCode(await liveApi.get(`${liveBase}/tasks/${task.id}`), 404, 'TASK_NOT_FOUND');
    assertCode(await liveApi.patch(`${liveBase}/tasks`, { taskIds: [task.id], status: 'COMPLETED' }), 404, 'TASK_NOT_FOUND');
    assertCode(await t.api.get(`${liveBase}/tasks`), 403, 'INSTANCE_ACCESS_DENIED');
  });
});
