import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
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

/** The care plan: GET care-plan, the overview, goals from templates, goal tasks and goal comments. */

const app = await startApp();
const DAY_MS = 24 * 60 * 60 * 1000;
const PASSWORD = 'a long enough password';

const goalKeys = [
  'createdAt',
  'createdByName',
  'id',
  'name',
  'priority',
  'status',
  'templateName',
  'type',
  'updatedAt',
  'updatedByName',
];
const overviewKeys = ['createdAt', 'createdByName', 'overview', 'updatedAt', 'updatedByName'];
const commentKeys = ['createdAt', 'createdByName', 'id', 'text', 'updatedAt', 'updatedByName'];

/** Goal templates of the task, and a care-coordinator role for the role-based assignee. */
const carePlanFormation = (): Formation =>
  testFormation({
    roles: [
      { name: 'care-coordinator', title: 'Care coordinator', policies: ['everything'] },
      { name: 'dietitian', title: 'Dietitian', policies: ['everything'] },
    ],
    goalTemplates: [
      {
        name: 'lower-hba1c',
        goalName: 'Lower HbA1c below 7%',
        type: 'CLINICAL',
        priority: 'HIGH',
        taskTemplates: [
          {
            name: 'ttmp-glucose-log',
            taskName: 'Review the glucose log',
            description: 'Weekly',
            priority: 'URGENT',
            dueInDays: 7,
            subjectConfig: { type: 'ROLE', roleName: 'care-coordinator' },
          },
          { name: 'ttmp-diet-plan', dueInDays: 0, subjectConfig: { type: 'ROLE', roleName: 'dietitian' } },
          { name: 'ttmp-no-role' },
        ],
      },
      { name: 'plain', goalName: 'A plain goal' },
    ],
  });

async function tenant(): Promise<TestTenant> {
  return createTestTenant(app, carePlanFormation());
}

async function createUser(t: TestTenant, username: string, role = 'admin', moreRoles: Record<string, unknown>[] = []) {
  const response = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Grace',
    lastName: username,
    roles: [{ permissionName: role, instanceName: 'sandbox' }, ...moreRoles],
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

async function createGoal(t: TestTenant, patientId: string, goalTemplateName = 'plain', api = t.api) {
  const response = await api.post(`${t.base}/patients/${patientId}/care-plan/goals`, { goalTemplateName });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

describe('GET /patients/{id}/care-plan', () => {
  test('is made on first access (audited and an event, as any create), then the same plan is read', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const first = await t.api.get(`${t.base}/patients/${patient.id}/care-plan`);
    assert.equal(first.status, 200, first.text);
    const plan = first.body;
    assert.deepEqual(Object.keys(plan).sort(), [
      'createdAt',
      'createdByName',
      'id',
      'patientId',
      'patientOverview',
      'updatedAt',
      'updatedByName',
    ]);
    assert.match(plan.id, uuidShape);
    assert.equal(plan.patientId, patient.id);
    assert.equal(plan.patientOverview, null);
    assert.match(plan.createdAt, isoMillis);
    assert.equal(plan.createdByName, `API_CLIENT:${t.adminClient.name}`);
    assert.deepEqual((await t.api.get(`${t.base}/patients/${patient.id}/care-plan`)).body, plan);
    const made = await auditOf(t, { entityType: 'CARE_PLAN' });
    assert.deepEqual(
      made.map((entry: { action: string; entityId: string }) => [entry.action, entry.entityId]),
      [['CARE_PLAN_CREATED', plan.id]],
    );
  });

  test('404 for an unknown patient, 400 for a malformed id, 401, 403 without CARE_PLAN_READ', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/care-plan`), 404, 'PATIENT_NOT_FOUND');
    assertValidation(await t.api.get(`${t.base}/patients/nope/care-plan`), 'params.patientId');
    assertCode(await t.anonymous.get(`${t.base}/patients/${patient.id}/care-plan`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const denied = await (await t.apiWith(['CARE_PLAN_UPDATE'])).get(`${t.base}/patients/${patient.id}/care-plan`);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'CARE_PLAN_READ');
    assert.equal((await (await t.apiWith(['CARE_PLAN_READ'])).get(`${t.base}/patients/${patient.id}/care-plan`)).status, 200);
  });
});

describe('POST|PUT /patients/{id}/care-plan/overview', () => {
  test('sets the overview, answering the inner object; the first writer stays its creator', async () => {
    const t = await tenant();
    await createUser(t, 'nurse');
    const patient = await createPatient(t);
    const path = `${t.base}/patients/${patient.id}/care-plan/overview`;
    const posted = await t.api.post(path, { overview: 'Diabetic, lives alone' });
    assert.equal(posted.status, 200, posted.text);
    assert.deepEqual(Object.keys(posted.body).sort(), overviewKeys);
    const client = `API_CLIENT:${t.adminClient.name}`;
    assert.equal(posted.body.overview, 'Diabetic, lives alone');
    assert.equal(posted.body.createdByName, client);
    assert.equal(posted.body.updatedByName, client);
    assert.match(posted.body.createdAt, isoMillis);

    const asNurse = await loginAs(t, 'nurse');
    const put = await asNurse.put(path, { overview: 'Diabetic, lives with daughter' });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.overview, 'Diabetic, lives with daughter');
    assert.equal(put.body.createdByName, client);
    assert.equal(put.body.createdAt, posted.body.createdAt);
    assert.equal(put.body.updatedByName, 'Grace nurse');

    const plan = (await t.api.get(`${t.base}/patients/${patient.id}/care-plan`)).body;
    assert.deepEqual(plan.patientOverview, put.body);
    assert.equal(plan.updatedByName, 'Grace nurse');
    const cleared = await t.api.put(path, { overview: null, createdAt: 'ignored' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.overview, null);

    const events = await auditOf(t, { patientId: patient.id, entityType: 'CARE_PLAN' });
    assert.equal(events.length, 4);
    assert.equal(events.filter((e) => e.action === 'CARE_PLAN_CREATED' && e.entityId === plan.id).length, 1);
    assert.ok(
      events.every((e) => ['CARE_PLAN_CREATED', 'CARE_PLAN_OVERVIEW_UPDATED'].includes(e.action) && e.entityId === plan.id),
    );
  });

  test('400 for a missing or wrong overview, 404, 401, 403 without CARE_PLAN_UPDATE', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const path = `${t.base}/patients/${patient.id}/care-plan/overview`;
    for (const method of ['post', 'put'] as const) {
      assertValidation(await t.api[method](path, {}), 'body.overview', method);
      assertValidation(await t.api[method](path, { overview: 5 }), 'body.overview', method);
      assertCode(
        await t.api[method](`${t.base}/patients/${randomUUID()}/care-plan/overview`, { overview: 'x' }),
        404,
        'PATIENT_NOT_FOUND',
      );
      assertCode(await t.anonymous[method](path, { overview: 'x' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    }
    const reader = await t.apiWith(['CARE_PLAN_READ']);
    assertCode(await reader.post(path, { overview: 'x' }), 403, 'ACCESS_DENIED');
    assertCode(await reader.put(path, { overview: 'x' }), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${t.base}/patients/${patient.id}/care-plan`)).body.patientOverview, null);
  });
});

describe('POST /patients/{id}/care-plan/goals', () => {
  test('adds a goal from its template', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const response = await t.api.post(`${t.base}/patients/${patient.id}/care-plan/goals`, { goalTemplateName: 'lower-hba1c' });
    assert.equal(response.status, 201, response.text);
    const goal = response.body;
    assert.deepEqual(Object.keys(goal).sort(), goalKeys);
    assert.match(goal.id, uuidShape);
    assert.equal(goal.name, 'Lower HbA1c below 7%');
    assert.equal(goal.type, 'CLINICAL');
    assert.equal(goal.priority, 'HIGH');
    assert.equal(goal.status, 'ACTIVE');
    assert.equal(goal.templateName, 'lower-hba1c');
    assert.equal(goal.createdByName, `API_CLIENT:${t.adminClient.name}`);
    assert.match(goal.createdAt, isoMillis);
    const plain = await createGoal(t, patient.id, 'plain');
    assert.equal(plain.priority, 'LOW', 'priority defaults to LOW');
    assert.equal(plain.type, null);
    const events = await auditOf(t, { patientId: patient.id, entityType: 'GOAL' });
    assert.deepEqual(events.map((e) => e.entityId).sort(), [goal.id, plain.id].sort());
    assert.ok(events.every((e) => e.action === 'GOAL_CREATED'));
    assert.equal((await auditOf(t, { patientId: patient.id, action: 'TASK_CREATED' })).length, 3, 'its tasks are audited too');
  });

  test('each task template becomes a task; the assignee is the first care-team member with the role, else the point of contact', async () => {
    const t = await tenant();
    const poc = await createUser(t, 'poc');
    const helper = await createUser(t, 'helper');
    const coordinator1 = await createUser(t, 'coord1', 'care-coordinator');
    const coordinator2 = await createUser(t, 'coord2', 'care-coordinator');
    const outsider = await createUser(t, 'outsider', 'care-coordinator');
    const patient = await createPatient(t, {
      careTeam: [{ id: coordinator2.id }, { id: poc.id, pointOfContact: true }, { id: helper.id }, { id: coordinator1.id }],
    });
    // The team's order, not creation order, decides: coord2 is listed first.
    const goal = await createGoal(t, patient.id, 'lower-hba1c');
    const view = (await t.api.get(`${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}`)).body;
    const [glucose, diet, noRole] = view.tasks;
    assert.equal(view.tasks.length, 3);

    assert.equal(glucose.name, 'Review the glucose log', 'taskName wins');
    assert.equal(glucose.description, 'Weekly');
    assert.equal(glucose.priority, 'URGENT');
    assert.equal(glucose.status, 'TODO');
    assert.equal(glucose.templateName, 'ttmp-glucose-log');
    assert.equal(glucose.createdType, 'AUTOMATION');
    assert.equal(glucose.goalId, goal.id);
    assert.deepEqual(glucose.patient, { id: patient.id, name: 'Ada Lovelace' });
    assert.deepEqual(glucose.assignee, { id: coordinator2.id, name: 'Grace coord2', enabled: true });
    assert.deepEqual(glucose.watchers, []);
    assert.deepEqual(glucose.comments, []);
    const dueIn = Date.parse(glucose.dueDate) - Date.parse(glucose.createdAt);
    assert.ok(Math.abs(dueIn - 7 * DAY_MS) < 1000, `due 7 days after creation, got ${dueIn} ms`);

    assert.equal(diet.name, 'ttmp-diet-plan', 'the template name when there is no taskName');
    assert.equal(diet.priority, 'MEDIUM', 'priority defaults to MEDIUM');
    assert.ok(Math.abs(Date.parse(diet.dueDate) - Date.parse(diet.createdAt)) < 1000, 'dueInDays 0 is due now');
    assert.deepEqual(diet.assignee?.id, poc.id, 'nobody holds the role: the point of contact');

    assert.equal(noRole.assignee?.id, poc.id, 'no role: the point of contact');
    assert.equal(noRole.dueDate, null, 'no dueInDays: no due date');
    assert.notEqual(glucose.assignee.id, outsider.id);
    assert.notEqual(glucose.assignee.id, coordinator1.id);

    // The tasks are ordinary tasks.
    const listed = await t.api.get(`${t.base}/tasks?templates=ttmp-glucose-log`);
    assert.deepEqual(
      listed.body.data.map((task: { id: string }) => task.id),
      [glucose.id],
    );
  });

  test('a role held in another instance does not count; a patient without a care team gets unassigned tasks', async () => {
    const t = await tenant();
    const live = await newInstance(app, t.tenant, 'live');
    await applyFormation(systemContext(app.services, t.tenant, live), carePlanFormation());
    const poc = await createUser(t, 'poc');
    const elsewhere = await createUser(t, 'elsewhere', 'admin', [{ permissionName: 'care-coordinator', instanceName: 'live' }]);
    const lonely = await createPatient(t);
    const goal = await createGoal(t, lonely.id, 'lower-hba1c');
    const tasks = (await t.api.get(`${t.base}/patients/${lonely.id}/care-plan/goals/${goal.id}/tasks`)).body;
    assert.deepEqual(
      tasks.map((task: { assignee: unknown }) => task.assignee),
      [null, null, null],
    );
    const patient = await createPatient(t, { careTeam: [{ id: poc.id, pointOfContact: true }, { id: elsewhere.id }] });
    const other = await createGoal(t, patient.id, 'lower-hba1c');
    const otherTasks = (await t.api.get(`${t.base}/patients/${patient.id}/care-plan/goals/${other.id}/tasks`)).body;
    assert.equal(otherTasks[0].assignee.id, poc.id, 'a coordinator only in live: the point of contact');
  });

  test('400 for an unknown template, a missing or wrong name; 404; 401; 403', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals`;
    assertValidation(await t.api.post(path, { goalTemplateName: 'nope' }), 'body.goalTemplateName');
    assertValidation(await t.api.post(path, {}), 'body.goalTemplateName');
    assertValidation(await t.api.post(path, { goalTemplateName: 5 }), 'body.goalTemplateName');
    assertCode(
      await t.api.post(`${t.base}/patients/${randomUUID()}/care-plan/goals`, { goalTemplateName: 'plain' }),
      404,
      'PATIENT_NOT_FOUND',
    );
    assertCode(await t.anonymous.post(path, { goalTemplateName: 'plain' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['CARE_PLAN_READ', 'TASK_UPDATE']);
    const denied = await reader.post(path, { goalTemplateName: 'plain' });
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'CARE_PLAN_UPDATE');
    assert.equal((await t.api.get(path)).body.metaInfo.totalElements, 0);
    assert.equal((await t.api.get(`${t.base}/tasks`)).body.metaInfo.totalElements, 0);
  });
});

describe('GET /patients/{id}/care-plan/goals', () => {
  test('lists all but REMOVED goals by default; status takes one or a list', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const other = await createPatient(t);
    const active = await createGoal(t, patient.id);
    const completed = await createGoal(t, patient.id);
    const removed = await createGoal(t, patient.id);
    await createGoal(t, other.id);
    await t.api.patch(`${t.base}/patients/${patient.id}/care-plan/goals/${completed.id}`, { status: 'COMPLETED' });
    await t.api.patch(`${t.base}/patients/${patient.id}/care-plan/goals/${removed.id}`, { status: 'REMOVED' });
    const path = `${t.base}/patients/${patient.id}/care-plan/goals`;
    const ids = async (query: string) => {
      const response = await t.api.get(`${path}?${query}`);
      assert.equal(response.status, 200, response.text);
      return response.body.data.map((goal: { id: string }) => goal.id);
    };
    const all = await t.api.get(path);
    assert.deepEqual(Object.keys(all.body).sort(), ['data', 'metaInfo']);
    assert.deepEqual(all.body.data[0], { ...active, updatedAt: all.body.data[0].updatedAt });
    assert.deepEqual(await ids(''), [active.id, completed.id]);
    assert.deepEqual(await ids('status=REMOVED'), [removed.id]);
    assert.deepEqual(await ids('status=ACTIVE,REMOVED'), [active.id, removed.id]);
    assert.deepEqual(await ids('status=ACTIVE&status=COMPLETED'), [active.id, completed.id]);
    const page = await t.api.get(`${path}?size=1&page=1&status=ACTIVE,COMPLETED,REMOVED`);
    assert.deepEqual(page.body.metaInfo, {
      page: 1,
      pageSize: 1,
      totalElements: 3,
      numberOfElements: 1,
      totalPages: 3,
      firstPage: false,
      lastPage: false,
    });
    assert.deepEqual(await ids('sort=name,asc&unknown=1'), [active.id, completed.id], 'other parameters are ignored');
  });

  test('400 for an unknown status or bad paging, 404, 401, 403', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals`;
    for (const query of ['status=DONE', 'status=active', 'size=0', 'page=-1']) {
      assertCode(await t.api.get(`${path}?${query}`), 400, 'VALIDATION_ERROR', query);
    }
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/care-plan/goals`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.anonymous.get(path), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['CARE_PLAN_UPDATE', 'TASK_READ'])).get(path), 403, 'ACCESS_DENIED');
  });
});

describe('GET|PATCH /patients/{id}/care-plan/goals/{goalId}', () => {
  test('the goal view holds the goal, its tasks and its comments', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const goal = await createGoal(t, patient.id, 'lower-hba1c');
    const base = `${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}`;
    const comment = (await t.api.post(`${base}/comments`, { text: 'Going well' })).body;
    const response = await t.api.get(base);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['comments', 'details', 'tasks']);
    assert.deepEqual(response.body.details, goal);
    assert.deepEqual(response.body.comments, [comment]);
    assert.deepEqual(response.body.tasks, (await t.api.get(`${base}/tasks`)).body);
    assert.equal(response.body.tasks.length, 3);
  });

  test('PATCH changes name, status and priority; REMOVED leaves the default list', async () => {
    const t = await tenant();
    await createUser(t, 'nurse');
    const patient = await createPatient(t);
    const goal = await createGoal(t, patient.id);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}`;
    const asNurse = await loginAs(t, 'nurse');
    const response = await asNurse.patch(path, { name: 'Walk daily', priority: 'MEDIUM', id: randomUUID(), templateName: 'x' });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), goalKeys);
    assert.equal(response.body.name, 'Walk daily');
    assert.equal(response.body.priority, 'MEDIUM');
    assert.equal(response.body.status, 'ACTIVE');
    assert.equal(response.body.templateName, 'plain', 'read-only keys are ignored');
    assert.equal(response.body.id, goal.id);
    assert.equal(response.body.updatedByName, 'Grace nurse');
    assert.equal(response.body.createdByName, goal.createdByName);
    const removed = await t.api.patch(path, { status: 'REMOVED' });
    assert.equal(removed.body.status, 'REMOVED');
    assert.equal(removed.body.name, 'Walk daily');
    assert.equal((await t.api.get(`${t.base}/patients/${patient.id}/care-plan/goals`)).body.metaInfo.totalElements, 0);
    assert.equal((await t.api.get(path)).body.details.status, 'REMOVED', 'still readable');
    const events = await auditOf(t, { patientId: patient.id, action: 'GOAL_UPDATED' });
    assert.deepEqual(
      events.map((e) => e.changedFields?.sort().join()),
      ['status', 'name,priority'],
    );
  });

  test('400 for bad values, 404 GOAL_NOT_FOUND also for another patient’s goal, 401, 403', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const other = await createPatient(t);
    const goal = await createGoal(t, patient.id);
    const othersGoal = await createGoal(t, other.id);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}`;
    assertValidation(await t.api.patch(path, { status: 'DONE' }), 'body.status');
    assertValidation(await t.api.patch(path, { priority: 'URGENT' }), 'body.priority');
    assertValidation(await t.api.patch(path, { name: 5 }), 'body.name');
    assertValidation(await t.api.patch(path, { name: '' }), 'body.name');
    assertValidation(await t.api.get(`${t.base}/patients/${patient.id}/care-plan/goals/nope`), 'params.goalId');
    const wrong = `${t.base}/patients/${patient.id}/care-plan/goals/${othersGoal.id}`;
    assertCode(await t.api.get(wrong), 404, 'GOAL_NOT_FOUND');
    assertCode(await t.api.patch(wrong, { status: 'REMOVED' }), 404, 'GOAL_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patients/${patient.id}/care-plan/goals/${randomUUID()}`), 404, 'GOAL_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/care-plan/goals/${goal.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.anonymous.get(path), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.patch(path, { status: 'REMOVED' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['CARE_PLAN_READ']);
    assert.equal((await reader.get(path)).status, 200);
    assertCode(await reader.patch(path, { status: 'REMOVED' }), 403, 'ACCESS_DENIED');
    assertCode(await (await t.apiWith(['CARE_PLAN_UPDATE'])).get(path), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(path)).body.details, goal);
    assert.equal(
      (await t.api.get(`${t.base}/patients/${other.id}/care-plan/goals/${othersGoal.id}`)).body.details.status,
      'ACTIVE',
    );
  });
});

describe('goal tasks', () => {
  test('POST adds a task about the goal’s patient; GET lists the goal’s tasks', async () => {
    const t = await tenant();
    const nurse = await createUser(t, 'nurse');
    const patient = await createPatient(t, { firstName: 'Mary', lastName: 'Shelley' });
    const other = await createPatient(t);
    const goal = await createGoal(t, patient.id);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}/tasks`;
    assert.deepEqual((await t.api.get(path)).body, []);
    const response = await t.api.post(path, {
      name: 'Book a dietitian',
      status: 'TODO',
      priority: 'HIGH',
      assignee: { id: nurse.id },
      patient: { id: other.id },
      goalId: randomUUID(),
      comments: [{ text: 'Asked for it' }],
    });
    assert.equal(response.status, 201, response.text);
    const task = response.body;
    assert.equal(task.goalId, goal.id);
    assert.deepEqual(task.patient, { id: patient.id, name: 'Mary Shelley' }, "always the goal's patient");
    assert.deepEqual(task.assignee, { id: nurse.id, name: 'Grace nurse', enabled: true });
    assert.deepEqual(task.comments[0].author, { id: patient.id, name: 'Mary Shelley', enabled: true });
    assert.deepEqual((await t.api.get(path)).body, [task]);
    assert.deepEqual((await t.api.get(`${t.base}/tasks/${task.id}`)).body, task);
    const events = await auditOf(t, { patientId: patient.id, action: 'TASK_CREATED' });
    assert.deepEqual(
      events.map((e) => e.entityId),
      [task.id],
    );
  });

  test('400 without an assignee or with bad fields, 404 for a missing goal, 401, 403', async () => {
    const t = await tenant();
    const nurse = await createUser(t, 'nurse');
    const patient = await createPatient(t);
    const goal = await createGoal(t, patient.id);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}/tasks`;
    const ok = { name: 'N', status: 'TODO', priority: 'LOW', assignee: { id: nurse.id } };
    assertValidation(await t.api.post(path, { ...ok, assignee: undefined }), 'body.assignee');
    assertValidation(await t.api.post(path, { ...ok, assignee: { id: randomUUID() } }), 'body.assignee.id');
    assertValidation(await t.api.post(path, { ...ok, status: 'DONE' }), 'body.status');
    assertValidation(await t.api.post(path, { ...ok, name: 1 }), 'body.name');
    const missing = `${t.base}/patients/${patient.id}/care-plan/goals/${randomUUID()}/tasks`;
    assertCode(await t.api.post(missing, ok), 404, 'GOAL_NOT_FOUND');
    assertCode(await t.api.get(missing), 404, 'GOAL_NOT_FOUND');
    assertCode(await t.anonymous.post(path, ok), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.get(path), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const taskWriter = await t.apiWith(['TASK_UPDATE', 'TASK_READ', 'CARE_PLAN_READ']);
    assertCode(await taskWriter.post(path, ok), 403, 'ACCESS_DENIED');
    assert.equal((await taskWriter.get(path)).status, 200);
    assertCode(await (await t.apiWith(['CARE_PLAN_UPDATE'])).get(path), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(path)).body, []);
  });
});

describe('goal comments', () => {
  test('POST adds a comment (201); GET lists them oldest first', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const goal = await createGoal(t, patient.id);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}/comments`;
    const first = await t.api.post(path, { text: 'First', id: randomUUID() });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(Object.keys(first.body).sort(), commentKeys);
    assert.equal(first.body.text, 'First');
    assert.equal(first.body.createdByName, `API_CLIENT:${t.adminClient.name}`);
    assert.match(first.body.createdAt, isoMillis);
    const second = (await t.api.post(path, { text: 'Second' })).body;
    assert.deepEqual((await t.api.get(path)).body, [first.body, second]);
    const events = await auditOf(t, { patientId: patient.id, action: 'GOAL_COMMENT_ADDED' });
    assert.equal(events.length, 2);
    assert.ok(events.every((e) => e.entityId === goal.id && e.entityType === 'GOAL'));
  });

  test('400 for missing or wrong text, 404, 401, 403', async () => {
    const t = await tenant();
    const patient = await createPatient(t);
    const other = await createPatient(t);
    const goal = await createGoal(t, patient.id);
    const path = `${t.base}/patients/${patient.id}/care-plan/goals/${goal.id}/comments`;
    assertValidation(await t.api.post(path, {}), 'body.text');
    assertValidation(await t.api.post(path, { text: '' }), 'body.text');
    assertValidation(await t.api.post(path, { text: 3 }), 'body.text');
    const wrong = `${t.base}/patients/${other.id}/care-plan/goals/${goal.id}/comments`;
    assertCode(await t.api.post(wrong, { text: 'x' }), 404, 'GOAL_NOT_FOUND');
    assertCode(await t.api.get(wrong), 404, 'GOAL_NOT_FOUND');
    assertCode(await t.anonymous.post(path, { text: 'x' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await t.anonymous.get(path), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['CARE_PLAN_READ']);
    assertCode(await reader.post(path, { text: 'x' }), 403, 'ACCESS_DENIED');
    assertCode(await (await t.apiWith(['CARE_PLAN_UPDATE'])).get(path), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(path)).body, []);
  });
});

describe('tenant isolation', () => {
  test("a token for tenant A is 403 on every care plan route of tenant B, and B's data is untouched", async () => {
    const a = await tenant();
    const b = await tenant();
    const nurse = await createUser(b, 'nurse');
    const patient = await createPatient(b);
    await b.api.put(`${b.base}/patients/${patient.id}/care-plan/overview`, { overview: 'B' });
    const goal = await createGoal(b, patient.id, 'lower-hba1c');
    const plan = `${b.base}/patients/${patient.id}/care-plan`;
    const goalPath = `${plan}/goals/${goal.id}`;
    const before = (await b.api.get(goalPath)).body;
    const attempts: [string, () => Promise<Response>][] = [
      ['read plan', () => a.api.get(plan)],
      ['post overview', () => a.api.post(`${plan}/overview`, { overview: 'A' })],
      ['put overview', () => a.api.put(`${plan}/overview`, { overview: 'A' })],
      ['list goals', () => a.api.get(`${plan}/goals`)],
      ['add goal', () => a.api.post(`${plan}/goals`, { goalTemplateName: 'plain' })],
      ['read goal', () => a.api.get(goalPath)],
      ['patch goal', () => a.api.patch(goalPath, { status: 'REMOVED' })],
      ['goal tasks', () => a.api.get(`${goalPath}/tasks`)],
      [
        'add goal task',
        () => a.api.post(`${goalPath}/tasks`, { name: 'x', status: 'TODO', priority: 'LOW', assignee: { id: nurse.id } }),
      ],
      ['goal comments', () => a.api.get(`${goalPath}/comments`)],
      ['add goal comment', () => a.api.post(`${goalPath}/comments`, { text: 'x' })],
    ];
    for (const [label, attempt] of attempts) assertCode(await attempt(), 403, 'TENANT_ACCESS_DENIED', label);
    assert.deepEqual((await b.api.get(goalPath)).body, before);
    assert.equal((await b.api.get(plan)).body.patientOverview.overview, 'B');
    assert.equal((await b.api.get(`${plan}/goals`)).body.metaInfo.totalElements, 1);
  });

  test("tenant B's patients and goals do not exist on tenant A's paths", async () => {
    const a = await tenant();
    const b = await tenant();
    const nurseA = await createUser(a, 'nurse');
    const mine = await createPatient(a);
    const myGoal = await createGoal(a, mine.id);
    const theirs = await createPatient(b);
    const theirGoal = await createGoal(b, theirs.id);
    const theirPlan = `${a.base}/patients/${theirs.id}/care-plan`;
    assertCode(await a.api.get(theirPlan), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.put(`${theirPlan}/overview`, { overview: 'x' }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.get(`${theirPlan}/goals`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.post(`${theirPlan}/goals`, { goalTemplateName: 'plain' }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.get(`${theirPlan}/goals/${theirGoal.id}`), 404, 'PATIENT_NOT_FOUND');
    // B's goal under A's own patient is no goal at all.
    const mixed = `${a.base}/patients/${mine.id}/care-plan/goals/${theirGoal.id}`;
    assertCode(await a.api.get(mixed), 404, 'GOAL_NOT_FOUND');
    assertCode(await a.api.patch(mixed, { status: 'REMOVED' }), 404, 'GOAL_NOT_FOUND');
    assertCode(await a.api.get(`${mixed}/tasks`), 404, 'GOAL_NOT_FOUND');
    assertCode(
      await a.api.post(`${mixed}/tasks`, { name: 'x', status: 'TODO', priority: 'LOW', assignee: { id: nurseA.id } }),
      404,
      'GOAL_NOT_FOUND',
    );
    assertCode(await a.api.get(`${mixed}/comments`), 404, 'GOAL_NOT_FOUND');
    assertCode(await a.api.post(`${mixed}/comments`, { text: 'x' }), 404, 'GOAL_NOT_FOUND');
    assert.deepEqual(
      (await a.api.get(`${a.base}/patients/${mine.id}/care-plan/goals`)).body.data.map((g: { id: string }) => g.id),
      [myGoal.id],
    );
    assert.equal(
      (await b.api.get(`${b.base}/patients/${theirs.id}/care-plan/goals/${theirGoal.id}`)).body.details.status,
      'ACTIVE',
    );
  });
});
