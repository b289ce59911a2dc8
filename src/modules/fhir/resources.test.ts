import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertOutcome, createUser, errorsOf, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import { createPatient, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/**
 * The FHIR resources beyond Patient, each as its area declares it (docs/fhir.md): what the routes
 * answer validates with no error with @medplum/core's validator, against its US Core 6.1.0 profile
 * where there is one (Practitioner) and base R4 otherwise (Task), required bindings' codes checked
 * here since the validator checks none.
 */

const app = await startApp();

/** A task, assigned to a new user unless the body says whom. */
async function createTask(t: TestTenant, body: Record<string, unknown>) {
  const assignee = body.assignee ?? { id: (await createUser(t)).id };
  const response = await t.api.post(`${t.base}/tasks`, {
    name: 'Call the patient',
    status: 'TODO',
    priority: 'MEDIUM',
    assignee,
    ...body,
  });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

describe('FHIR R4: Practitioner (users)', () => {
  test('read and search validate against US Core Practitioner; a user with no name is named by the username', async () => {
    const t = await createTestTenant(app);
    const ann = await createUser(t, { firstName: 'Ann', lastName: 'Lee', phone: '+12015550100' });
    const bare = await createUser(t, { firstName: null, lastName: null });
    const read = await t.api.get(`${fhirBase(t)}/Practitioner/${ann.id}`);
    assert.equal(read.status, 200, read.text);
    assert.match(String(read.headers['content-type']), /^application\/fhir\+json/);
    assert.deepEqual(usCoreErrors(read.body, 'us-core-practitioner'), []);
    assert.deepEqual(read.body.name, [{ use: 'official', family: 'Lee', given: ['Ann'] }]);
    assert.equal(read.body.active, true);
    const nameless = (await t.api.get(`${fhirBase(t)}/Practitioner/${bare.id}`)).body;
    assert.deepEqual(usCoreErrors(nameless, 'us-core-practitioner'), []);
    assert.deepEqual(nameless.name, [
      {
        text: bare.username,
        _family: { extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/data-absent-reason', valueCode: 'unknown' }] },
      },
    ]);

    const byName = (await t.api.get(`${fhirBase(t)}/Practitioner?name=le`)).body;
    assert.deepEqual(idsOf(byName), [ann.id]);
    for (const entry of byName.entry) assert.deepEqual(usCoreErrors(entry.resource, 'us-core-practitioner'), []);
    const byUsername = (
      await t.api.get(
        `${fhirBase(t)}/Practitioner?identifier=${encodeURIComponent(`https://cairn.health/fhir/sid/username|${bare.username}`)}`,
      )
    ).body;
    assert.deepEqual(idsOf(byUsername), [bare.id]);
    assert.deepEqual(idsOf((await t.api.get(`${fhirBase(t)}/Practitioner?given=ann&family=lee`)).body), [ann.id]);
    assert.deepEqual(idsOf((await t.api.get(`${fhirBase(t)}/Practitioner?given=ann&family=nobody`)).body), []);
  });

  test("USER_READ is needed; a missing or another tenant's user is 404; a practitioner read is not in the access log", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const theirs = await createUser(other);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Practitioner/${theirs.id}`), 404, 'USER_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/Practitioner/not-a-uuid`), 404, 'USER_NOT_FOUND');
    const outsider = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await outsider.get(`${fhirBase(t)}/Practitioner?name=a`), 403, 'ACCESS_DENIED');
    const mine = await createUser(t);
    assert.equal((await t.api.get(`${fhirBase(t)}/Practitioner/${mine.id}`)).status, 200);
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    assert.deepEqual(
      (log.body.data as { operation: string }[]).filter((record) => record.operation.includes('Practitioner')),
      [],
    );
  });
});

describe('FHIR R4: Task', () => {
  test('read and search by patient, status, owner and dates validate against base R4, with valid codes', async () => {
    const t = await createTestTenant(app);
    const nurse = await createUser(t, { firstName: 'Nia', lastName: 'Nurse' });
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const other = await createPatient(t, { firstName: 'Bo', lastName: 'Other' });
    const first = await createTask(t, {
      patient: { id: patient.id },
      assignee: { id: nurse.id },
      description: 'About the refill',
      dueDate: '2026-12-01T09:00:00Z',
      priority: 'URGENT',
    });
    const second = await createTask(t, { patient: { id: patient.id }, status: 'COMPLETED', priority: 'LOW' });
    const unlinked = await createTask(t, { status: 'CANCELED' });
    await createTask(t, { patient: { id: other.id }, status: 'IN_PROGRESS', priority: 'HIGH' });

    const read = await t.api.get(`${fhirBase(t)}/Task/${first.id}`);
    assert.equal(read.status, 200, read.text);
    const task = read.body;
    assert.deepEqual(errorsOf(task), []);
    assert.equal(task.status, 'requested');
    assert.equal(task.intent, 'order');
    assert.equal(task.priority, 'asap');
    assert.deepEqual(task.for, { reference: `Patient/${patient.id}` });
    assert.deepEqual(task.owner, { reference: `Practitioner/${nurse.id}` });
    assert.equal(task.restriction.period.end, '2026-12-01T09:00:00.000Z');
    assert.deepEqual(task.note, [{ text: 'About the refill' }]);
    // Task.status and Task.intent are required bindings: their codes are checked here.
    const statuses = [
      'draft',
      'requested',
      'received',
      'accepted',
      'rejected',
      'ready',
      'cancelled',
      'in-progress',
      'on-hold',
      'failed',
      'completed',
      'entered-in-error',
    ];
    const all = (await t.api.get(`${fhirBase(t)}/Task?_count=100`)).body;
    assert.equal(all.entry.length, 4);
    for (const entry of all.entry) {
      assert.deepEqual(errorsOf(entry.resource), []);
      assert.ok(statuses.includes(entry.resource.status), entry.resource.status);
      assert.ok(['routine', 'urgent', 'asap', 'stat'].includes(entry.resource.priority), entry.resource.priority);
    }
    const search = async (query: string) => idsOf((await t.api.get(`${fhirBase(t)}/Task?${query}`)).body);
    assert.deepEqual(await search(`patient=Patient/${patient.id}`), [first.id, second.id].sort());
    assert.deepEqual(await search(`patient=${patient.id}&status=completed`), [second.id]);
    assert.deepEqual(await search('status=requested,cancelled'), [first.id, unlinked.id].sort());
    assert.deepEqual(await search(`owner=Practitioner/${nurse.id}`), [first.id]);
    // Cairn's due date is `due-date`; R4's `period` is executionPeriod, which no task shows, so it matches none.
    assert.deepEqual(await search('due-date=le2026-12-01'), [first.id]);
    assert.deepEqual(await search('due-date=2026-12-01'), [first.id]);
    assert.deepEqual(await search('due-date=lt2026-12-01'), []);
    assert.equal(task.executionPeriod, undefined);
    for (const query of ['period=le2026-12-01', 'period=2026-12-01', 'period=ge1900', 'period=ne2026']) {
      assert.deepEqual(await search(query), [], query);
    }
    assertOutcome(await t.api.get(`${fhirBase(t)}/Task?period=soon`), 400, 'VALIDATION_ERROR');
    const capability = (await t.anonymous.get(`${fhirBase(t)}/metadata`)).body;
    assert.deepEqual(errorsOf(capability), []);
    const taskParams = capability.rest[0].resource.find((resource: { type: string }) => resource.type === 'Task').searchParam;
    assert.deepEqual(
      taskParams.find((param: { name: string }) => param.name === 'due-date'),
      {
        name: 'due-date',
        definition: 'https://cairn.health/fhir/SearchParameter/Task-due-date',
        type: 'date',
        documentation: "Cairn's own: when the task is due, Task.restriction.period.end (the due date index)",
      },
    );
    assert.deepEqual(
      taskParams.find((param: { name: string }) => param.name === 'period'),
      { name: 'period', type: 'date' },
      "R4's own parameter: no definition of Cairn's",
    );
    assert.deepEqual(await search(`patient=${randomUUID()}`), []);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Task?status=done`), 400, 'VALIDATION_ERROR');
  });

  test("TASK_READ is needed; 404 for a missing or another tenant's task; each answer names its patients in the access log", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const theirs = await createTask(other, {});
    assertOutcome(await t.api.get(`${fhirBase(t)}/Task/${theirs.id}`), 404, 'TASK_NOT_FOUND');
    const patientReader = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await patientReader.get(`${fhirBase(t)}/Task`), 403, 'ACCESS_DENIED');
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const task = await createTask(t, { patient: { id: patient.id } });
    assert.equal((await t.api.get(`${fhirBase(t)}/Task/${task.id}`)).status, 200);
    assert.equal((await t.api.get(`${fhirBase(t)}/Task?patient=${patient.id}`)).status, 200);
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const [page, read] = (log.body.data as any[]).filter((record) => record.operation.includes('/fhir/R4/Task'));
    assert.deepEqual([read.resourceType, read.patientIds, read.recordIds], ['TASK', [patient.id], [task.id]]);
    assert.deepEqual([page.resourceType, page.patientIds], ['TASK', [patient.id]]);
  });
});

describe('FHIR R4: CarePlan and Goal (care plans)', () => {
  const formation = () =>
    testFormation({
      goalTemplates: [
        { name: 'walk', goalName: 'Walk 30 minutes a day', type: 'LIFESTYLE', priority: 'HIGH' },
        { name: 'plain', goalName: 'A <plain> goal' },
      ],
    });

  test('a care plan and its goals validate against US Core CarePlan and Goal, searched by patient, category, status', async () => {
    const t = await createTestTenant(app, formation());
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const other = await createPatient(t, { firstName: 'Bo', lastName: 'Other' });
    const base = `${t.base}/patients/${patient.id}/care-plan`;
    assert.equal((await t.api.post(`${base}/overview`, { overview: 'Diabetic & lives alone <alert>' })).status, 200);
    assert.equal((await t.api.get(base)).status, 200, 'the plan is made on first access');
    assert.equal((await t.api.get(`${t.base}/patients/${other.id}/care-plan`)).status, 200);
    const walk = (await t.api.post(`${base}/goals`, { goalTemplateName: 'walk' })).body;
    const plain = (await t.api.post(`${base}/goals`, { goalTemplateName: 'plain' })).body;
    assert.equal((await t.api.patch(`${base}/goals/${plain.id}`, { status: 'COMPLETED' })).status, 200);

    const plans = (await t.api.get(`${fhirBase(t)}/CarePlan?patient=${patient.id}&category=assess-plan`)).body;
    assert.equal(plans.entry.length, 1);
    const carePlan = plans.entry[0].resource;
    assert.deepEqual(usCoreErrors(carePlan, 'us-core-careplan'), []);
    assert.equal(carePlan.text.div, '<div xmlns="http://www.w3.org/1999/xhtml">Diabetic &amp; lives alone &lt;alert&gt;</div>');
    assert.deepEqual([carePlan.status, carePlan.intent], ['active', 'plan']);
    assert.deepEqual(carePlan.subject, { reference: `Patient/${patient.id}` });
    const read = await t.api.get(`${fhirBase(t)}/CarePlan/${carePlan.id}`);
    assert.deepEqual(usCoreErrors(read.body, 'us-core-careplan'), []);
    const otherPlan = (await t.api.get(`${fhirBase(t)}/CarePlan?patient=Patient/${other.id}`)).body.entry[0].resource;
    assert.deepEqual(usCoreErrors(otherPlan, 'us-core-careplan'), [], 'a plan with no overview has a narrative too');
    assert.equal((await t.api.get(`${fhirBase(t)}/CarePlan?patient=${patient.id}&category=longitudinal`)).body.entry, undefined);
    assert.equal((await t.api.get(`${fhirBase(t)}/CarePlan?patient=${patient.id}&status=active`)).body.entry.length, 1);

    const goals = (await t.api.get(`${fhirBase(t)}/Goal?patient=${patient.id}`)).body;
    assert.deepEqual(idsOf(goals), [walk.id, plain.id].sort());
    const lifecycle = [
      'proposed',
      'planned',
      'accepted',
      'active',
      'on-hold',
      'completed',
      'cancelled',
      'entered-in-error',
      'rejected',
    ];
    for (const entry of goals.entry) {
      assert.deepEqual(usCoreErrors(entry.resource, 'us-core-goal'), []);
      assert.ok(lifecycle.includes(entry.resource.lifecycleStatus), entry.resource.lifecycleStatus);
    }
    const goal = (await t.api.get(`${fhirBase(t)}/Goal/${walk.id}`)).body;
    assert.deepEqual(usCoreErrors(goal, 'us-core-goal'), []);
    assert.deepEqual(goal.description, { text: 'Walk 30 minutes a day' });
    assert.equal(goal.priority.coding[0].code, 'high-priority');
    assert.deepEqual(idsOf((await t.api.get(`${fhirBase(t)}/Goal?patient=${patient.id}&lifecycle-status=completed`)).body), [
      plain.id,
    ]);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Goal?lifecycle-status=finished`), 400, 'VALIDATION_ERROR');
  });

  test('a care plan names its goals, oldest first, removed ones too; each resolves to a Goal the caller reads', async () => {
    const t = await createTestTenant(app, formation());
    const other = await createTestTenant(app, formation());
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const bare = await createPatient(t, { firstName: 'Bo', lastName: 'Bare' });
    const neighbour = await createPatient(t, { firstName: 'Cy', lastName: 'Next' });
    const theirs = await createPatient(other, { firstName: 'Di', lastName: 'Theirs' });
    const goalOf = async (tenant: TestTenant, patientId: string, template: string) => {
      const made = await tenant.api.post(`${tenant.base}/patients/${patientId}/care-plan/goals`, { goalTemplateName: template });
      assert.equal(made.status, 201, made.text);
      return made.body.id as string;
    };
    const walk = await goalOf(t, patient.id, 'walk');
    const plain = await goalOf(t, patient.id, 'plain');
    const removed = await goalOf(t, patient.id, 'walk');
    const patched = await t.api.patch(`${t.base}/patients/${patient.id}/care-plan/goals/${removed}`, { status: 'REMOVED' });
    assert.equal(patched.status, 200, patched.text);
    const neighbourGoal = await goalOf(t, neighbour.id, 'plain');
    const theirGoal = await goalOf(other, theirs.id, 'plain');
    assert.equal((await t.api.get(`${t.base}/patients/${bare.id}/care-plan`)).status, 200);

    const planOf = async (patientId: string) => {
      const found = await t.api.get(`${fhirBase(t)}/CarePlan?patient=${patientId}`);
      assert.equal(found.status, 200, found.text);
      const carePlan = found.body.entry[0].resource;
      assert.deepEqual(usCoreErrors(carePlan, 'us-core-careplan'), []);
      const read = await t.api.get(`${fhirBase(t)}/CarePlan/${carePlan.id}`);
      assert.deepEqual(read.body, carePlan, 'read and search show the same plan');
      return carePlan;
    };
    const carePlan = await planOf(patient.id);
    assert.deepEqual(
      carePlan.goal,
      [walk, plain, removed].map((id) => ({ reference: `Goal/${id}` })),
    );
    for (const { reference } of carePlan.goal) {
      const goal = await t.api.get(`${fhirBase(t)}/${reference}`);
      assert.equal(goal.status, 200, `${reference} resolves`);
      assert.deepEqual(goal.body.subject, { reference: `Patient/${patient.id}` });
      assert.deepEqual(usCoreErrors(goal.body, 'us-core-goal'), []);
    }
    assert.equal((await t.api.get(`${fhirBase(t)}/Goal/${removed}`)).body.lifecycleStatus, 'cancelled');
    assert.equal((await planOf(bare.id)).goal, undefined, 'a plan without goals names none');
    assert.deepEqual(
      (await planOf(neighbour.id)).goal,
      [{ reference: `Goal/${neighbourGoal}` }],
      "another patient's goals are theirs",
    );
    assert.ok(!JSON.stringify(carePlan).includes(theirGoal));

    // R4's `goal` parameter finds the plan by a goal it names, and _include=CarePlan:goal adds them.
    const search = async (query: string) => (await t.api.get(`${fhirBase(t)}/CarePlan?${query}`)).body;
    assert.deepEqual(idsOf(await search(`goal=Goal/${plain}`)), [carePlan.id]);
    assert.deepEqual(idsOf(await search(`goal=${neighbourGoal}&patient=${patient.id}`)), []);
    assert.deepEqual(idsOf(await search(`goal=${theirGoal}`)), []);
    const included = await search(`patient=${patient.id}&_include=CarePlan:goal`);
    const entries = included.entry as { resource: { resourceType: string; id: string }; search: { mode: string } }[];
    assert.deepEqual(
      entries
        .filter((entry) => entry.search.mode === 'include')
        .map((entry) => entry.resource.id)
        .sort(),
      [walk, plain, removed].sort(),
    );
    assert.deepEqual(errorsOf(included), []);
  });

  test("CARE_PLAN_READ is needed; 404 for a missing or another tenant's plan or goal", async () => {
    const t = await createTestTenant(app, formation());
    const other = await createTestTenant(app, formation());
    const theirs = await createPatient(other, { firstName: 'Bo', lastName: 'Other' });
    const theirGoal = (await other.api.post(`${other.base}/patients/${theirs.id}/care-plan/goals`, { goalTemplateName: 'plain' }))
      .body;
    assert.equal((await other.api.get(`${other.base}/patients/${theirs.id}/care-plan`)).status, 200);
    const theirPlanId = (await other.api.get(`${fhirBase(other)}/CarePlan?patient=${theirs.id}`)).body.entry[0].resource.id;
    assertOutcome(await t.api.get(`${fhirBase(t)}/Goal/${theirGoal.id}`), 404, 'GOAL_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/CarePlan/${theirPlanId}`), 404, 'CARE_PLAN_NOT_FOUND');
    const taskReader = await t.apiWith(['TASK_READ']);
    assertOutcome(await taskReader.get(`${fhirBase(t)}/Goal`), 403, 'ACCESS_DENIED');
    assertOutcome(await taskReader.get(`${fhirBase(t)}/CarePlan`), 403, 'ACCESS_DENIED');
  });
});

describe('FHIR R4: Appointment (calendar events)', () => {
  async function member(t: TestTenant, name: string) {
    return (
      await createUser(t, { firstName: 'Ada', lastName: name, roles: [{ permissionName: 'admin', instanceName: 'sandbox' }] })
    ).id;
  }
  async function createEvent(t: TestTenant, body: Record<string, unknown>) {
    const response = await t.api.post(`${t.base}/calendar/events`, { eventTitle: 'Check-in', eventType: 'APPOINTMENT', ...body });
    assert.equal(response.status, 201, response.text);
    return response.body;
  }

  test('events validate as base R4 Appointments with their participants, searched by patient, practitioner, date and status', async () => {
    const t = await createTestTenant(app);
    const host = await member(t, 'host');
    const nurse = await member(t, 'nurse');
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const other = await createPatient(t, { firstName: 'Bo', lastName: 'Other' });
    const visit = await createEvent(t, {
      startDateTime: '2026-07-01T16:00:00Z',
      endDateTime: '2026-07-01T17:00:00Z',
      hostId: host,
      participants: [
        { participantId: patient.id, participantRole: 'patient' },
        { participantId: nurse, participantRole: 'psm' },
      ],
    });
    const cancelled = await createEvent(t, {
      startDateTime: '2026-07-03T16:00:00Z',
      endDateTime: '2026-07-03T16:30:00Z',
      hostId: nurse,
      eventStatus: 'CANCELED',
      participants: [{ participantId: other.id, participantRole: 'patient' }],
    });

    const read = await t.api.get(`${fhirBase(t)}/Appointment/${visit.id}`);
    assert.equal(read.status, 200, read.text);
    const appointment = read.body;
    assert.deepEqual(errorsOf(appointment), []);
    assert.equal(appointment.status, 'booked');
    assert.deepEqual(
      [appointment.start, appointment.end, appointment.minutesDuration],
      ['2026-07-01T16:00:00.000Z', '2026-07-01T17:00:00.000Z', 60],
    );
    assert.deepEqual(
      appointment.participant.map((p: any) => [p.actor.reference, p.status]),
      [
        [`Practitioner/${host}`, 'accepted'],
        [`Patient/${patient.id}`, 'accepted'],
        [`Practitioner/${nurse}`, 'accepted'],
      ],
    );
    const statuses = [
      'proposed',
      'pending',
      'booked',
      'arrived',
      'fulfilled',
      'cancelled',
      'noshow',
      'entered-in-error',
      'checked-in',
      'waitlist',
    ];
    const all = (await t.api.get(`${fhirBase(t)}/Appointment`)).body;
    for (const entry of all.entry) {
      assert.deepEqual(errorsOf(entry.resource), []);
      assert.ok(statuses.includes(entry.resource.status), entry.resource.status);
    }
    const search = async (query: string) => idsOf((await t.api.get(`${fhirBase(t)}/Appointment?${query}`)).body);
    assert.deepEqual(await search(`patient=Patient/${patient.id}`), [visit.id]);
    assert.deepEqual(await search(`practitioner=${nurse}`), [visit.id, cancelled.id].sort());
    assert.deepEqual(await search(`practitioner=${host}`), [visit.id], 'the host, though not among the participants');
    assert.deepEqual(await search('date=2026-07-03'), [cancelled.id]);
    assert.deepEqual(await search('date=ge2026-07-01&date=lt2026-07-02'), [visit.id]);
    assert.deepEqual(await search('status=cancelled'), [cancelled.id]);
    assert.deepEqual(await search(`status=booked&patient=${other.id}`), []);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Appointment?status=done`), 400, 'VALIDATION_ERROR');

    // Each answer names the patients among its participants in the access log.
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const reads = (log.body.data as any[]).filter((record) => record.operation.endsWith('/Appointment/:id'));
    assert.deepEqual(
      [reads[0].resourceType, reads[0].patientIds, reads[0].recordIds],
      ['CALENDAR_EVENT', [patient.id], [visit.id]],
    );
  });

  test("CALENDAR_READ is needed; 404 for a missing or another tenant's event", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const theirs = await createEvent(other, {
      startDateTime: '2026-07-01T16:00:00Z',
      endDateTime: '2026-07-01T17:00:00Z',
      hostId: await member(other, 'host'),
      participants: [],
    });
    assertOutcome(await t.api.get(`${fhirBase(t)}/Appointment/${theirs.id}`), 404, 'CALENDAR_EVENT_NOT_FOUND');
    assertOutcome(await (await t.apiWith(['PATIENT_READ'])).get(`${fhirBase(t)}/Appointment`), 403, 'ACCESS_DENIED');
  });
});
