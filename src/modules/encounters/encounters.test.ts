import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import {
  Api,
  assertCode,
  assertValidation,
  createPatient,
  createTestInstance,
  createTestTenant,
  metaInfoKeys,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/** Encounters: the patient, user and instance routes, full encounters and the parts of an encounter. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });

const screen = {
  name: 'screen',
  title: 'Screen',
  sections: [
    {
      title: 'Mood',
      name: 'mood',
      order: 1,
      fields: [{ label: 'Mood', name: 'mood', order: 1, viewType: 'question', meta: { type: 'text', required: false } }],
    },
  ],
};

const formation = () =>
  testFormation({
    assessments: [screen] as never,
    visitServices: [
      {
        name: 'initial-visit',
        title: 'Initial visit',
        serviceCost: 15000,
        cancellationFee: 2500,
        preVisitCost: 1000,
        modifiers: [],
      },
      { name: 'follow-up', title: 'Follow-up', serviceCost: 8000, cancellationFee: 1500, preVisitCost: 0, modifiers: ['95'] },
    ],
    encounterTemplates: [
      { name: 'intake', title: 'Intake', deliveryMethod: 'VIDEO', assessmentNames: ['screen'], visitServices: ['initial-visit'] },
      { name: 'check-in', title: 'Check-in', assessmentNames: [], visitServices: ['follow-up'] },
    ],
    encounterDisposition: { fields: [{ name: 'outcome', type: 'select', options: ['RESOLVED', 'FOLLOW_UP'] }] },
  });

interface Setup {
  t: TestTenant;
  host: string;
  patient: string;
  base: string;
}

async function member(t: TestTenant, username: string, timezone = 'US/Pacific'): Promise<string> {
  const created = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Dana',
    lastName: username,
    timezone,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

async function setup(patientBody: Record<string, unknown> = {}): Promise<Setup> {
  const t = await createTestTenant(app, formation());
  const host = await member(t, 'host');
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', phone: '+14155550123', ...patientBody })).id;
  return { t, host, patient, base: `${t.base}/patients/${patient}/encounters` };
}

function appointment(s: Setup, extra: Record<string, unknown> = {}) {
  return {
    startDateTime: '2026-07-01T16:00:00Z',
    endDateTime: '2026-07-01T16:30:00Z',
    hostId: s.host,
    eventMode: 'IN-PERSON',
    ...extra,
  };
}

async function create(s: Setup, body: Record<string, unknown>) {
  const created = await s.t.api.post(s.base, body);
  assert.equal(created.status, 201, created.text);
  return created.body;
}

describe('create and read', () => {
  test('with an appointment: the event, the disposition and the template links are made; services priced in cents', async () => {
    const s = await setup();
    const encounter = await create(s, {
      title: 'First visit',
      templateName: 'intake',
      responsibleParty: 'SELF_PAY',
      location: 'https://video.example.org/room/1',
      currentScheduledAppointment: appointment(s, { eventMode: 'VIDEO' }),
      visitServices: [{ name: 'initial-visit', quantity: 2, serviceCost: 1 }],
    });
    assert.equal(encounter.cdtName, '__encounter__');
    assert.equal(encounter.patientId, s.patient);
    const body = encounter.jsonBody;
    assert.equal(body.status, 'DRAFT');
    assert.equal(body.type, 'intake');
    assert.equal(body.templateTitle, 'Intake');
    assert.equal(body.ownerUserId, s.host);
    assert.equal(body.ownerUserName, 'Dana host');
    assert.equal(body.startDatetime, '2026-07-01T16:00:00.000Z');
    assert.equal(body.localStartDatetime, '2026-07-01T09:00:00.000-07:00');
    assert.equal(body.calendarEvent.eventType, 'ENCOUNTER');
    assert.equal(body.calendarEvent.participants[0].participantId, s.patient);
    assert.deepEqual(body.visitServices, [
      { name: 'initial-visit', quantity: 2, serviceCost: 15000, cancellationFee: 2500, preVisitCost: 1000, modifiers: [] },
    ]);
    assert.equal(body.serviceCost, 30000);
    assert.equal(body.preVisitCost, 2000);
    assert.ok(body.dispositionId);

    const full = await s.t.api.get(`${s.t.base}/patients/${s.patient}/full-encounters/${encounter.id}`);
    assert.equal(full.status, 200, full.text);
    assert.deepEqual(Object.keys(full.body).sort(), [
      'assessmentLinks',
      'calendarEvent',
      'comments',
      'disposition',
      'encounter',
      'userRelatedToCalendarEvent',
    ]);
    assert.equal(full.body.disposition.id, body.dispositionId);
    assert.equal(full.body.disposition.cdtName, '__encounter_disposition__');
    assert.equal(full.body.disposition.jsonBody.source_id, encounter.id);
    assert.equal(full.body.userRelatedToCalendarEvent.id, s.host);
    assert.equal(full.body.assessmentLinks.length, 1);
    assert.equal(full.body.assessmentLinks[0].jsonBody.assessmentName, 'screen');
    assert.equal(full.body.assessmentLinks[0].jsonBody.fromTemplate, true);

    const events = await s.t.api.get(
      `${s.t.base}/calendar/events?from=2026-07-01T00:00:00Z&to=2026-07-02T00:00:00Z&includeEncounterInfo=true`,
    );
    assert.equal(events.body.content[0].encounterInfo.encounterId, encounter.id);
    assert.equal(events.body.content[0].encounterInfo.serviceCost, 30000);
    const unassigned = await s.t.api.get(
      `${s.t.base}/calendar/events?from=2026-07-01T00:00:00Z&to=2026-07-02T00:00:00Z&excludeAssignedToEncounterEvents=true`,
    );
    assert.equal(unassigned.body.totalElements, 0);
  });

  test('a failure anywhere in the create leaves nothing: no encounter, event or disposition', async () => {
    const s = await setup();
    const bad = await s.t.api.post(s.base, {
      templateName: 'intake',
      currentScheduledAppointment: appointment(s, { hostId: randomUUID() }),
    });
    assertValidation(bad, 'body.currentScheduledAppointment.hostId');
    const video = await s.t.api.post(s.base, {
      templateName: 'intake',
      location: 'http://video.example.org/x',
      currentScheduledAppointment: appointment(s, { eventMode: 'VIDEO' }),
    });
    assertValidation(video, 'body.location');
    const list = await s.t.api.get(s.base);
    assert.equal(list.body.metaInfo.totalElements, 0);
    const events = await s.t.api.get(`${s.t.base}/calendar/events?from=2026-07-01T00:00:00Z&to=2026-07-02T00:00:00Z`);
    assert.equal(events.body.totalElements, 0);
    const records = await app.services.db.selectFrom('cdt_records').select('id').where('tenant_id', '=', s.t.tenant.id).execute();
    assert.equal(records.length, 0);
  });

  test('bad input: unknown template, service or modifier, a final status, CALL without a phone', async () => {
    const s = await setup();
    assertValidation(await s.t.api.post(s.base, { templateName: 'nope' }), 'body.templateName');
    assertValidation(await s.t.api.post(s.base, { visitServices: [{ name: 'nope' }] }), 'body.visitServices.0.name');
    assertValidation(
      await s.t.api.post(s.base, { visitServices: [{ name: 'follow-up', modifiers: ['25'] }] }),
      'body.visitServices.0.modifiers.0',
    );
    assertValidation(await s.t.api.post(s.base, { status: 'FINALIZED' }), 'body.status');
    assertValidation(await s.t.api.post(s.base, { status: 'DONE' }));
    assertValidation(await s.t.api.post(s.base, { responsibleParty: 'CASH' }));
    const phoneless = await setup({ phone: null });
    assertValidation(
      await phoneless.t.api.post(phoneless.base, { currentScheduledAppointment: appointment(phoneless, { eventMode: 'CALL' }) }),
      'body.location',
    );
    const call = await create(s, { currentScheduledAppointment: appointment(s, { eventMode: 'CALL' }) });
    assert.equal(call.jsonBody.location, '+14155550123');
    assertCode(await s.t.api.post(`${s.t.base}/patients/${randomUUID()}/encounters`, {}), 404, 'PATIENT_NOT_FOUND');
  });

  test('a user caller reads local times in their own zone; an API client in the host zone', async () => {
    const s = await setup();
    await member(s.t, 'eastern', 'US/Eastern');
    await s.t.api.put(`${s.t.admin}/users/eastern/password`, { password: 'a long enough password' });
    const login = await s.t.anonymous.post('/auth/token', {
      tenantName: s.t.tenant.name,
      username: 'eastern',
      password: 'a long enough password',
    });
    const eastern = new Api(app.server, login.body.token);
    const encounter = await create(s, { currentScheduledAppointment: appointment(s) });
    const asUser = await eastern.get(`${s.base}/${encounter.id}`);
    assert.equal(asUser.status, 200, asUser.text);
    assert.equal(asUser.body.jsonBody.localStartDatetime, '2026-07-01T12:00:00.000-04:00');
    const asClient = await s.t.api.get(`${s.base}/${encounter.id}`);
    assert.equal(asClient.body.jsonBody.localStartDatetime, '2026-07-01T09:00:00.000-07:00');
    assert.equal(asClient.body.jsonBody.endDatetime, '2026-07-01T16:30:00.000Z');
    // 002's names beside production's.
    assert.equal(asClient.body.jsonBody.endDateTime, '2026-07-01T16:30:00.000Z');
    assert.equal(asClient.body.jsonBody.localStartDateTime, '2026-07-01T09:00:00.000-07:00');
  });
});

describe('changes', () => {
  test('status moves DRAFT → OPEN → ACTIVE → FINALIZED; others are a 400 naming the move; FINALIZED emits its event', async () => {
    const s = await setup();
    const encounter = await create(s, { templateName: 'check-in', responsibleParty: 'SELF_PAY' });
    const url = `${s.base}/${encounter.id}`;
    const skip = await s.t.api.patch(url, { status: 'FINALIZED' });
    assertCode(skip, 400, 'INVALID_STATUS_TRANSITION');
    assert.match(skip.body[0].message, /DRAFT to FINALIZED/);
    for (const status of ['OPEN', 'ACTIVE', 'FINALIZED']) {
      const moved = await s.t.api.patch(url, { status });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.jsonBody.status, status);
    }
    const events = await app.services.db
      .selectFrom('events')
      .select(['event_subtype', 'record_id'])
      .where('tenant_id', '=', s.t.tenant.id)
      .where('event_entity', '=', 'ENCOUNTER')
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      events.map((event) => event.event_subtype),
      ['ENCOUNTER_CREATED', 'ENCOUNTER_UPDATED', 'ENCOUNTER_UPDATED', 'ENCOUNTER_UPDATED', 'ENCOUNTER_FINALIZED'],
    );
    // FINALIZED is read-only without its own permission; with it, still no move out.
    const plain = await s.t.apiWith(['ENCOUNTER_READ', 'ENCOUNTER_UPDATE']);
    assertCode(await plain.patch(url, { notes: 'late' }), 403, 'ACCESS_DENIED');
    assertCode(await plain.post(`${url}/comments`, { text: 'late' }), 403, 'ACCESS_DENIED');
    assertCode(await plain.delete(url), 403, 'ACCESS_DENIED');
    assert.equal((await s.t.api.patch(url, { notes: 'amended' })).status, 200);
    assertCode(await s.t.api.patch(url, { status: 'CANCELLED' }), 400, 'INVALID_STATUS_TRANSITION');
  });

  test('cancelling cancels the appointment; delete removes the parts and keeps the event', async () => {
    const s = await setup();
    const encounter = await create(s, {
      templateName: 'intake',
      location: 'https://v.example.org/r',
      currentScheduledAppointment: appointment(s, { eventMode: 'VIDEO' }),
    });
    const url = `${s.base}/${encounter.id}`;
    await s.t.api.post(`${url}/comments`, { text: 'hello' });
    const cancelled = await s.t.api.patch(url, { status: 'CANCELLED' });
    assert.equal(cancelled.body.jsonBody.calendarEvent.eventStatus, 'CANCELLED');
    const removed = await s.t.api.delete(url);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.text, '');
    assertCode(await s.t.api.get(url), 404, 'DT_RECORD_NOT_FOUND');
    const left = await app.services.db
      .selectFrom('cdt_records')
      .select('cdt_name')
      .where('tenant_id', '=', s.t.tenant.id)
      .execute();
    assert.deepEqual(left, []);
    const event = await s.t.api.get(`${s.t.base}/calendar/events/${encounter.jsonBody.calendarEventId}`);
    assert.equal(event.status, 200);
    assert.equal(event.body.encounterInfo, null);
  });

  test("deleting an encounter's future event cancels it rather than removing it", async () => {
    const s = await setup();
    const encounter = await create(s, { currentScheduledAppointment: appointment(s) });
    const eventUrl = `${s.t.base}/calendar/events/${encounter.jsonBody.calendarEventId}`;
    assert.equal((await s.t.api.delete(eventUrl)).status, 204);
    const kept = await s.t.api.get(eventUrl);
    assert.equal(kept.body.eventStatus, 'CANCELLED');
    assert.equal(kept.body.encounterInfo.encounterId, encounter.id);
    assertValidation(
      await s.t.api.post(s.base, { calendarEventId: kept.body.id, currentScheduledAppointment: appointment(s) }),
      'body.calendarEventId',
    );
  });

  test('PATCH reprices services and checks the location; unknown encounters are 404', async () => {
    const s = await setup();
    const encounter = await create(s, {
      currentScheduledAppointment: appointment(s, { eventMode: 'VIDEO' }),
      location: 'https://v.example.org/a',
    });
    const url = `${s.base}/${encounter.id}`;
    const repriced = await s.t.api.patch(url, { visitServices: [{ name: 'follow-up', modifiers: ['95'] }], title: 'Renamed' });
    assert.equal(repriced.body.jsonBody.serviceCost, 8000);
    assert.equal(repriced.body.jsonBody.title, 'Renamed');
    assertValidation(await s.t.api.patch(url, { location: 'video.example.org' }), 'body.location');
    assertCode(await s.t.api.patch(`${s.base}/${randomUUID()}`, { title: 'x' }), 404, 'DT_RECORD_NOT_FOUND');
  });
});

describe('parts', () => {
  test('comments, disposition and assessment links', async () => {
    const s = await setup();
    const encounter = await create(s, {
      templateName: 'intake',
      location: 'https://v.example.org/r',
      currentScheduledAppointment: appointment(s, { eventMode: 'VIDEO' }),
    });
    const url = `${s.base}/${encounter.id}`;

    const comment = await s.t.api.post(`${url}/comments`, { text: 'Arrived early' });
    assert.equal(comment.status, 201, comment.text);
    assert.equal(comment.body.encounterId, encounter.id);
    const changed = await s.t.api.patch(`${url}/comments/${comment.body.id}`, { text: 'Arrived on time' });
    assert.equal(changed.body.text, 'Arrived on time');
    assert.deepEqual(
      (await s.t.api.get(`${url}/comments`)).body.map((c: { text: string }) => c.text),
      ['Arrived on time'],
    );
    assert.equal((await s.t.api.delete(`${url}/comments/${comment.body.id}`)).status, 200);
    assertCode(await s.t.api.delete(`${url}/comments/${comment.body.id}`), 404, 'ENCOUNTER_COMMENT_NOT_FOUND');
    assertValidation(await s.t.api.post(`${url}/comments`, { text: '' }));

    const disposition = await s.t.api.patch(`${url}/disposition`, { outcome: 'RESOLVED' });
    assert.equal(disposition.status, 200, disposition.text);
    assert.equal(disposition.body.jsonBody.outcome, 'RESOLVED');
    assert.equal((await s.t.api.get(`${url}/disposition`)).body.jsonBody.outcome, 'RESOLVED');
    assertValidation(await s.t.api.patch(`${url}/disposition`, { outcome: 'MAYBE' }));

    const links = await s.t.api.get(`${url}/assessments`);
    assert.equal(links.body.length, 1);
    const added = await s.t.api.post(`${url}/assessments`, { assessmentName: 'screen' });
    assert.equal(added.status, 201, added.text);
    assert.equal(added.body.jsonBody.fromTemplate, false);
    assertValidation(await s.t.api.post(`${url}/assessments`, { assessmentName: 'nope' }), 'body.assessmentName');
    const record = await s.t.api.post(`${s.t.base}/patients/${s.patient}/assessment-records`, { assessmentName: 'screen' });
    assert.equal(record.status, 201, record.text);
    const linked = await s.t.api.patch(`${url}/assessments/${added.body.id}`, { assessmentRecordId: record.body.id });
    assert.equal(linked.status, 200, linked.text);
    assert.equal(linked.body.jsonBody.assessmentRecordId, record.body.id);
    assertValidation(
      await s.t.api.patch(`${url}/assessments/${added.body.id}`, { assessmentRecordId: randomUUID() }),
      'body.assessmentRecordId',
    );
    assert.equal((await s.t.api.get(`${url}/assessments/${added.body.id}`)).body.id, added.body.id);
    assert.equal((await s.t.api.delete(`${url}/assessments/${added.body.id}`)).status, 200);
    assertCode(await s.t.api.get(`${url}/assessments/${added.body.id}`), 404, 'DT_RECORD_NOT_FOUND');

    const plain = await setup();
    const bare = await create(plain, {});
    assertCode(await plain.t.api.get(`${plain.base}/${bare.id}/disposition`), 404, 'DT_RECORD_NOT_FOUND');
    const made = await plain.t.api.patch(`${plain.base}/${bare.id}/disposition`, { notes: 'by phone' });
    assert.equal(made.status, 200, made.text);
    assert.equal((await plain.t.api.get(`${plain.base}/${bare.id}`)).body.jsonBody.dispositionId, made.body.id);
  });
});

describe('lists', () => {
  test('patient, user and instance lists (data and meta), with status and care-team rules; full lists load the parts', async () => {
    const s = await setup();
    const nurse = await member(s.t, 'nurse');
    const other = (await createPatient(s.t, { firstName: 'Other', lastName: 'One', careTeam: [{ id: nurse }] })).id;
    const first = await create(s, {
      templateName: 'intake',
      location: 'https://v.example.org/1',
      currentScheduledAppointment: appointment(s, { eventMode: 'VIDEO' }),
    });
    clock.advance(1000);
    const second = await create(s, { status: 'OPEN' });
    clock.advance(1000);
    const third = (
      await s.t.api.post(`${s.t.base}/patients/${other}/encounters`, {
        currentScheduledAppointment: {
          ...appointment(s),
          hostId: nurse,
          startDateTime: '2026-07-03T16:00:00Z',
          endDateTime: '2026-07-03T17:00:00Z',
        },
      })
    ).body;

    const patientList = await s.t.api.get(s.base);
    assert.deepEqual(Object.keys(patientList.body).sort(), ['data', 'metaInfo']);
    assert.deepEqual(Object.keys(patientList.body.metaInfo).sort(), metaInfoKeys);
    assert.deepEqual(
      patientList.body.data.map((e: { id: string }) => e.id),
      [second.id, first.id],
    );
    const open = await s.t.api.get(`${s.base}?status=OPEN`);
    assert.deepEqual(
      open.body.data.map((e: { id: string }) => e.id),
      [second.id],
    );
    const withEvent = await s.t.api.get(`${s.base}?excludeWithoutCalendarEvent=true&sort=createdAt,asc`);
    assert.deepEqual(
      withEvent.body.data.map((e: { id: string }) => e.id),
      [first.id],
    );

    const hostList = await s.t.api.get(`${s.t.base}/users/${s.host}/encounters?withCareTeam=false`);
    assert.deepEqual(
      hostList.body.data.map((e: { id: string }) => e.id),
      [first.id],
    );
    assert.equal(hostList.body.data[0].cdtName, null);
    assert.equal(hostList.body.data[0].jsonBody.patientInfo.firstName, 'Pat');
    // Care-team only (the default): the encounters of the nurse's care-team patient, whoever hosts.
    const nurseList = await s.t.api.get(`${s.t.base}/users/${nurse}/encounters`);
    assert.deepEqual(
      nurseList.body.data.map((e: { id: string }) => e.id),
      [third.id],
    );
    assert.equal((await s.t.api.get(`${s.t.base}/users/${s.host}/encounters`)).body.metaInfo.totalElements, 0);
    assertCode(await s.t.api.get(`${s.t.base}/users/${randomUUID()}/encounters`), 404, 'USER_NOT_FOUND');

    const all = await s.t.api.get(`${s.t.base}/encounters?withCareTeam=false`);
    assert.equal(all.body.metaInfo.totalElements, 3);
    assertValidation(await s.t.api.get(`${s.t.base}/encounters`), 'querystring.withCareTeam');

    const full = await s.t.api.get(`${s.t.base}/patients/${s.patient}/full-encounters?direction=ASC`);
    assert.equal(full.status, 200, full.text);
    assert.deepEqual(
      full.body.data.map((e: { encounter: { id: string } }) => e.encounter.id),
      [first.id, second.id],
    );
    assert.equal(full.body.data[0].assessmentLinks.length, 1);
    assert.equal(full.body.data[1].disposition, null);
    const ranged = await s.t.api.get(
      `${s.t.base}/users/${nurse}/full-encounters?from=2026-07-03T00:00:00Z&to=2026-07-04T00:00:00Z`,
    );
    assert.deepEqual(
      ranged.body.data.map((e: { encounter: { id: string } }) => e.encounter.id),
      [third.id],
    );
    const instanceFull = await s.t.api.get(`${s.t.base}/full-encounters?status=DRAFT`);
    assert.equal(instanceFull.body.metaInfo.totalElements, 2);
  });

  test("another tenant's encounters are not found", async () => {
    const a = await setup();
    const b = await setup();
    const encounter = await create(a, {});
    assertCode(await b.t.api.get(`${b.t.base}/patients/${a.patient}/encounters/${encounter.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await b.t.api.get(`${b.base}/${encounter.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assert.equal((await b.t.api.get(`${b.t.base}/encounters?withCareTeam=false`)).body.metaInfo.totalElements, 0);
  });
});

describe("the appointment is the encounter's patient's", () => {
  const atTwo = { startDateTime: '2026-07-02T16:00:00Z', endDateTime: '2026-07-02T16:30:00Z' };
  const asPatient = (participantId: string) => ({ participantId, participantRole: 'patient' });

  /** A calendar event of the instance `t`, hosted by `host`, with these participants. */
  async function eventIn(t: TestTenant, host: string, participants: unknown[]): Promise<string> {
    const made = await t.api.post(`${t.base}/calendar/events`, { ...atTwo, hostId: host, participants });
    assert.equal(made.status, 201, made.text);
    return made.body.id;
  }

  test("calendarEventId: another patient's, another instance's or another tenant's event is 400, and nothing is written", async () => {
    const s = await setup();
    const other = (await createPatient(s.t, { firstName: 'Oth', lastName: 'Er' })).id;
    const theirs = await eventIn(s.t, s.host, [asPatient(other)]);
    const shared = await eventIn(s.t, s.host, [asPatient(s.patient), asPatient(other)]);
    const live = await createTestInstance(s.t, 'live', formation());
    const liveEvent = await eventIn(live, s.host, [asPatient((await createPatient(live)).id)]);
    const b = await setup();
    const bEvent = await eventIn(b.t, b.host, [asPatient(b.patient)]);
    for (const calendarEventId of [theirs, shared, liveEvent, bEvent, randomUUID()]) {
      assertValidation(await s.t.api.post(s.base, { calendarEventId }), 'body.calendarEventId', calendarEventId);
    }
    assert.equal((await s.t.api.get(s.base)).body.metaInfo.totalElements, 0, 'no encounter was made');
    assert.equal((await s.t.api.get(`${s.t.base}/calendar/events/${theirs}`)).body.encounterInfo, null, 'no event was taken');

    // The patient's own event, or one naming no patient, is taken.
    const mine = await eventIn(s.t, s.host, [asPatient(s.patient)]);
    assert.equal((await create(s, { calendarEventId: mine })).jsonBody.calendarEventId, mine);
    const meeting = await eventIn(s.t, s.host, []);
    assert.equal((await create(s, { calendarEventId: meeting.toUpperCase() })).jsonBody.calendarEventId, meeting);
  });

  test('currentScheduledAppointment: another patient among its participants is 400 naming that participant', async () => {
    const s = await setup();
    const other = (await createPatient(s.t, { firstName: 'Oth', lastName: 'Er' })).id;
    const refused = await s.t.api.post(s.base, {
      currentScheduledAppointment: appointment(s, { participants: [asPatient(s.patient), asPatient(other)] }),
    });
    assertValidation(refused, 'body.currentScheduledAppointment.participants.1.participantId');
    assert.deepEqual(
      refused.body[0].details.errors.map((error: { path: string }) => error.path),
      ['body.currentScheduledAppointment.participants.1.participantId'],
    );
    assert.equal((await s.t.api.get(s.base)).body.metaInfo.totalElements, 0);
    const events = await s.t.api.get(`${s.t.base}/calendar/events?from=2026-07-01T00:00:00Z&to=2026-07-02T00:00:00Z`);
    assert.equal(events.body.totalElements, 0, 'no event was made');

    // The patient named (in any case) and other members are taken; the patient is not added twice.
    const made = await create(s, {
      currentScheduledAppointment: appointment(s, {
        participants: [
          { participantId: s.host, participantRole: 'host' },
          { participantId: s.patient.toUpperCase(), participantRole: 'PATIENT' },
        ],
      }),
    });
    assert.deepEqual(
      made.jsonBody.calendarEvent.participants.map((p: { participantId: string }) => p.participantId),
      [s.host, s.patient],
    );
  });
});
