import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import {
  Api,
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  pageObjectKeys,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/** The calendar: /calendar/events, /calendar/work-hours and the members' schedules. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });

const formation = () =>
  testFormation({
    visitServices: [
      { name: 'follow-up', title: 'Follow-up', serviceCost: 8000, cancellationFee: 1500, preVisitCost: 0, modifiers: [] },
    ],
    encounterTemplates: [{ name: 'check-in', title: 'Check-in', assessmentNames: [], visitServices: ['follow-up'] }],
  });

async function member(t: TestTenant, username: string, timezone?: string): Promise<string> {
  const created = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Ada',
    lastName: username,
    ...(timezone ? { timezone } : {}),
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

/** A token of the user itself (a user caller, whose own zone local fields use). */
async function signIn(t: TestTenant, username: string): Promise<Api> {
  await t.api.put(`${t.admin}/users/${username}/password`, { password: 'a long enough password' });
  const login = await t.anonymous.post('/auth/token', {
    tenantName: t.tenant.name,
    username,
    password: 'a long enough password',
  });
  assert.equal(login.status, 200, login.text);
  return new Api(app.server, login.body.token);
}

interface Setup {
  t: TestTenant;
  host: string;
  patient: string;
}

async function setup(): Promise<Setup> {
  const t = await createTestTenant(app, formation());
  const host = await member(t, 'host', 'US/Pacific');
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' })).id;
  return { t, host, patient };
}

function appointment(s: Setup, start: string, end: string, extra: Record<string, unknown> = {}) {
  return {
    eventTitle: 'Check-in',
    eventType: 'APPOINTMENT',
    startDateTime: start,
    endDateTime: end,
    hostId: s.host,
    participants: [{ participantId: s.patient, participantRole: 'patient' }],
    ...extra,
  };
}

describe('calendar events', () => {
  test('create answers 201 with the event, its participants filled from the patient and user, in the host zone for an API client', async () => {
    const s = await setup();
    const nurse = await member(s.t, 'nurse');
    const created = await s.t.api.post(
      `${s.t.base}/calendar/events`,
      appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z', {
        participants: [
          { participantId: s.patient, participantRole: 'patient' },
          { participantId: nurse, participantRole: 'psm', attended: true },
        ],
      }),
    );
    assert.equal(created.status, 201, created.text);
    const event = created.body;
    assert.equal(event.startDateTime, '2026-07-01T16:00:00.000Z');
    assert.equal(event.localStartDateTime, '2026-07-01T09:00:00.000-07:00');
    assert.equal(event.localEndDateTime, '2026-07-01T10:00:00.000-07:00');
    assert.equal(event.duration, 3600);
    assert.equal(event.eventColor, 'green');
    assert.equal(event.allDayEvent, false);
    assert.equal(event.participants.length, 2);
    const [patient, nurseEntry] = event.participants;
    assert.equal(patient.firstName, 'Pat');
    assert.equal(patient.email, 'pat@example.org');
    assert.equal(patient.deleted, false);
    assert.equal(nurseEntry.lastName, 'nurse');
    assert.equal(nurseEntry.attended, true);
    assert.equal(nurseEntry.participantRole, 'psm');

    const read = await s.t.api.get(`${s.t.base}/calendar/events/${event.id}?viewerTimezone=Europe/Paris`);
    assert.equal(read.body.localStartDateTime, '2026-07-01T18:00:00.000+02:00');
    assert.equal(read.body.encounterInfo, null);

    const leave = await s.t.api.post(
      `${s.t.base}/calendar/events`,
      appointment(s, '2026-07-02T16:00:00Z', '2026-07-02T17:00:00Z', { eventType: 'LEAVE', participants: [] }),
    );
    assert.equal(leave.body.eventColor, 'grey');
  });

  test('a user caller gets local times in their own zone', async () => {
    const s = await setup();
    await member(s.t, 'eastern', 'US/Eastern');
    const eastern = await signIn(s.t, 'eastern');
    const created = await s.t.api.post(
      `${s.t.base}/calendar/events`,
      appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z'),
    );
    const read = await eastern.get(`${s.t.base}/calendar/events/${created.body.id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.localStartDateTime, '2026-07-01T12:00:00.000-04:00');
  });

  test('bad input is a 400 naming the field, and nothing is written', async () => {
    const s = await setup();
    const url = `${s.t.base}/calendar/events`;
    assertValidation(
      await s.t.api.post(url, { ...appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z'), hostId: undefined }),
    );
    assertValidation(
      await s.t.api.post(url, appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z', { hostId: randomUUID() })),
      'body.hostId',
    );
    assertValidation(
      await s.t.api.post(
        url,
        appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z', {
          participants: [{ participantId: randomUUID(), participantRole: 'patient' }],
        }),
      ),
      'body.participants.0.participantId',
    );
    assertValidation(await s.t.api.post(url, appointment(s, '2026-07-01T17:00:00Z', '2026-07-01T16:00:00Z')), 'body.endDateTime');
    assertValidation(await s.t.api.post(url, appointment(s, 'yesterday', '2026-07-01T16:00:00Z')));
    const list = await s.t.api.get(`${url}?from=2026-01-01T00:00:00Z&to=2026-12-31T00:00:00Z`);
    assert.equal(list.body.totalElements, 0);
  });

  test('the list takes a range (required), participants, type and the cancelled and encounter flags', async () => {
    const s = await setup();
    const other = await member(s.t, 'other');
    const url = `${s.t.base}/calendar/events`;
    const make = async (body: Record<string, unknown>) => (await s.t.api.post(url, body)).body.id as string;
    const first = await make(appointment(s, '2026-07-06T16:00:00Z', '2026-07-06T17:00:00Z'));
    // The same host at the same time: accepted (no conflict rule).
    const overlapping = await make(appointment(s, '2026-07-06T16:30:00Z', '2026-07-06T17:30:00Z'));
    const otherHost = await make({
      ...appointment(s, '2026-07-07T16:00:00Z', '2026-07-07T17:00:00Z'),
      hostId: other,
      participants: [],
    });
    const leave = await make({
      ...appointment(s, '2026-06-20T00:00:00Z', '2026-07-20T00:00:00Z'),
      eventType: 'LEAVE',
      hostId: other,
      participants: [],
    });
    const outside = await make(appointment(s, '2026-08-06T16:00:00Z', '2026-08-06T17:00:00Z'));
    const week = 'from=2026-07-06T00:00:00Z&to=2026-07-13T00:00:00Z';

    const all = await s.t.api.get(`${url}?${week}`);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(Object.keys(all.body).sort(), pageObjectKeys);
    assert.deepEqual(
      all.body.content.map((event: { id: string }) => event.id),
      [leave, first, overlapping, otherHost],
    );
    assert.ok(!all.body.content.some((event: { id: string }) => event.id === outside));

    const byPatient = await s.t.api.get(`${url}?${week}&participantIds=${s.patient}`);
    assert.deepEqual(
      byPatient.body.content.map((event: { id: string }) => event.id),
      [first, overlapping],
    );
    const byHost = await s.t.api.get(`${url}?${week}&participantIds=${other}`);
    assert.deepEqual(
      byHost.body.content.map((event: { id: string }) => event.id),
      [leave, otherHost],
    );
    const leaves = await s.t.api.get(`${url}?${week}&eventType=leave`);
    assert.deepEqual(
      leaves.body.content.map((event: { id: string }) => event.id),
      [leave],
    );
    const desc = await s.t.api.get(`${url}?${week}&sort=startDateTime,desc&size=2`);
    assert.deepEqual(
      desc.body.content.map((event: { id: string }) => event.id),
      [otherHost, overlapping],
    );
    assert.equal(desc.body.totalElements, 4);
    const beyond = await s.t.api.get(`${url}?${week}&page=5&size=2`);
    assert.equal(beyond.body.totalElements, 4);
    assert.equal(beyond.body.content.length, 0);

    await s.t.api.patch(`${url}/${first}`, { eventStatus: 'Cancelled' });
    const live = await s.t.api.get(`${url}?${week}&participantIds=${s.patient}`);
    assert.deepEqual(
      live.body.content.map((event: { id: string }) => event.id),
      [overlapping],
    );
    const withCancelled = await s.t.api.get(`${url}?${week}&participantIds=${s.patient}&includeCancelled=TRUE`);
    assert.equal(withCancelled.body.content.length, 2);

    assertValidation(await s.t.api.get(`${url}?from=2026-07-06T00:00:00Z`));
    assertValidation(await s.t.api.get(`${url}?from=2026-07-06T00:00:00Z&to=2026-07-01T00:00:00Z`), 'querystring.to');
    assertValidation(await s.t.api.get(`${url}?from=2020-07-06T00:00:00Z&to=2026-07-01T00:00:00Z`), 'querystring.to');
    assertCode(await s.t.api.get(`${url}?${week}&sort=title`), 400, 'INVALID_SORT');
  });

  test('PUT replaces, PATCH changes the fields given and keeps the participants in step', async () => {
    const s = await setup();
    const url = `${s.t.base}/calendar/events`;
    const created = await s.t.api.post(
      url,
      appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z', { eventMode: 'VIDEO' }),
    );
    const id = created.body.id;
    const patched = await s.t.api.patch(`${url}/${id}`, {
      startDateTime: '2026-07-08T16:00:00Z',
      endDateTime: '2026-07-08T16:30:00Z',
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.eventMode, 'VIDEO');
    assert.equal(patched.body.duration, 1800);
    assert.equal(patched.body.participants.length, 1);
    const moved = await s.t.api.get(`${url}?from=2026-07-08T00:00:00Z&to=2026-07-09T00:00:00Z&participantIds=${s.patient}`);
    assert.deepEqual(
      moved.body.content.map((event: { id: string }) => event.id),
      [id],
    );
    const replaced = await s.t.api.put(
      `${url}/${id}`,
      appointment(s, '2026-07-08T16:00:00Z', '2026-07-08T17:00:00Z', { participants: [] }),
    );
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.eventMode, null);
    assert.deepEqual(replaced.body.participants, []);
    assertCode(await s.t.api.patch(`${url}/${randomUUID()}`, { eventTitle: 'x' }), 404, 'CALENDAR_EVENT_NOT_FOUND');
    // A host who has left since: the event can still change, as long as the host is not set again.
    const leaving = await member(s.t, 'leaving');
    const hosted = (
      await s.t.api.post(url, { ...appointment(s, '2026-07-09T16:00:00Z', '2026-07-09T17:00:00Z'), hostId: leaving })
    ).body;
    assert.equal((await s.t.api.delete(`${s.t.admin}/users/leaving`)).status, 200);
    const status = await s.t.api.patch(`${url}/${hosted.id}`, { eventStatus: 'COMPLETED' });
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.participants[0].participationStatus, 'UNKNOWN');
    assertValidation(await s.t.api.patch(`${url}/${hosted.id}`, { hostId: leaving }), 'body.hostId');
  });

  test('delete: a past event stays readable as CANCELLED, a future one is gone; both answer 204', async () => {
    const s = await setup();
    const url = `${s.t.base}/calendar/events`;
    const past = (await s.t.api.post(url, appointment(s, '2026-05-01T16:00:00Z', '2026-05-01T17:00:00Z'))).body.id;
    const future = (await s.t.api.post(url, appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z'))).body.id;
    const gonePast = await s.t.api.delete(`${url}/${past}`);
    assert.equal(gonePast.status, 204);
    assert.equal(gonePast.text, '');
    const stays = await s.t.api.get(`${url}/${past}`);
    assert.equal(stays.body.eventStatus, 'CANCELLED');
    assert.equal((await s.t.api.delete(`${url}/${future}`)).status, 204);
    assertCode(await s.t.api.get(`${url}/${future}`), 404, 'CALENDAR_EVENT_NOT_FOUND');
    assertCode(await s.t.api.delete(`${url}/${future}`), 404, 'CALENDAR_EVENT_NOT_FOUND');
  });

  test("another tenant's events are not found, and its ids are not accepted", async () => {
    const a = await setup();
    const b = await setup();
    const event = (
      await a.t.api.post(`${a.t.base}/calendar/events`, appointment(a, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z'))
    ).body;
    assertCode(await b.t.api.get(`${b.t.base}/calendar/events/${event.id}`), 404, 'CALENDAR_EVENT_NOT_FOUND');
    assertCode(await b.t.api.delete(`${b.t.base}/calendar/events/${event.id}`), 404, 'CALENDAR_EVENT_NOT_FOUND');
    assertValidation(
      await b.t.api.post(
        `${b.t.base}/calendar/events`,
        appointment(b, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z', { hostId: a.host }),
      ),
      'body.hostId',
    );
    const list = await b.t.api.get(`${b.t.base}/calendar/events?from=2026-07-01T00:00:00Z&to=2026-07-02T00:00:00Z`);
    assert.equal(list.body.totalElements, 0);
  });

  test('writes emit CALENDAR events through the unit of work', async () => {
    const s = await setup();
    const url = `${s.t.base}/calendar/events`;
    const id = (await s.t.api.post(url, appointment(s, '2026-07-01T16:00:00Z', '2026-07-01T17:00:00Z'))).body.id;
    await s.t.api.patch(`${url}/${id}`, { eventTitle: 'Moved' });
    await s.t.api.delete(`${url}/${id}`);
    const events = await app.services.db
      .selectFrom('events')
      .select(['event_subtype', 'record_id', 'patient_id'])
      .where('tenant_id', '=', s.t.tenant.id)
      .where('event_entity', '=', 'CALENDAR')
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      events.map((event) => [event.event_subtype, event.record_id]),
      [
        ['CALENDAR_CREATED', id],
        ['CALENDAR_UPDATED', id],
        ['CALENDAR_DELETED', id],
      ],
    );
    assert.equal(events[0]?.patient_id, s.patient);
  });
});

describe('time zones', () => {
  test('an all-day event covers whole days of its zone: 23.5 hours on the Lord Howe spring-forward day', async () => {
    const s = await setup();
    const created = await s.t.api.post(
      `${s.t.base}/calendar/events`,
      appointment(s, '2026-10-04T05:00:00+10:30', '2026-10-04T06:00:00+11:00', {
        allDayEvent: true,
        timezone: 'Australia/Lord_Howe',
        eventType: 'LEAVE',
      }),
    );
    assert.equal(created.status, 201, created.text);
    const event = (await s.t.api.get(`${s.t.base}/calendar/events/${created.body.id}?viewerTimezone=Australia/Lord_Howe`)).body;
    assert.equal(event.localStartDateTime, '2026-10-04T00:00:00.000+10:30');
    assert.equal(event.localEndDateTime, '2026-10-05T00:00:00.000+11:00');
    assert.equal(event.duration, 23.5 * 3600);
  });

  test('an all-day event in US/Pacific on the fall-back day lasts 25 hours', async () => {
    const s = await setup();
    const created = await s.t.api.post(
      `${s.t.base}/calendar/events`,
      appointment(s, '2026-11-01T12:00:00Z', '2026-11-01T13:00:00Z', { allDayEvent: true }),
    );
    assert.equal(created.body.localStartDateTime, '2026-11-01T00:00:00.000-07:00');
    assert.equal(created.body.localEndDateTime, '2026-11-02T00:00:00.000-08:00');
    assert.equal(created.body.duration, 25 * 3600);
  });
});

describe('work hours and schedules', () => {
  const daily = (startTime: string, endTime: string) => [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, startTime, endTime }));

  test('POST, GET grouped per member asked and PUT', async () => {
    const s = await setup();
    const idle = await member(s.t, 'idle');
    const url = `${s.t.base}/calendar/work-hours`;
    const created = await s.t.api.post(url, {
      psmId: s.host,
      type: 'WORKING_HOURS',
      startDateTime: '2026-01-01T00:00:00Z',
      daysInfo: [{ day: 1, startTime: '09:00:00', endTime: '17:00:00' }],
    });
    assert.equal(created.status, 201, created.text);
    const [group] = created.body;
    assert.equal(group.psmId, s.host);
    const [entry] = group.details;
    assert.equal(entry.ruleType, 'DEFAULT');
    assert.equal(entry.endDateTime, '2076-01-01T00:00:00.000Z');
    assert.equal(entry.localStartDateTime, '2025-12-31T16:00:00.000-08:00');
    assert.equal(entry.encounters, undefined);
    assert.equal(entry.daysInfo[0].day, 1);

    const read = await s.t.api.get(`${url}?psm-ids=${s.host},${idle}&from=2026-07-01T00:00:00Z&to=2026-07-08T00:00:00Z`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.body.map((g: { psmId: string; details: unknown[] }) => [g.psmId, g.details.length]),
      [
        [s.host, 1],
        [idle, 0],
      ],
    );
    const alias = await s.t.api.get(
      `${url}?psmIds=${s.host}&from=2026-07-01T00:00:00Z&to=2026-07-08T00:00:00Z&viewerTimezone=UTC`,
    );
    assert.equal(alias.body[0].details[0].localStartDateTime, '2026-01-01T00:00:00.000+00:00');

    const put = await s.t.api.put(`${url}/${entry.workHoursId}`, {
      psmId: s.host,
      type: 'WORKING_HOURS',
      name: 'Summer',
      startDateTime: '2026-01-01T00:00:00Z',
      endDateTime: '2026-09-01T00:00:00Z',
      daysInfo: [
        { day: 1, startTime: '09:00:00', endTime: '17:00:00' },
        { day: 2, startTime: '10:00:00', endTime: '24:00:00' },
      ],
    });
    assert.equal(put.status, 200, put.text);
    const changed = put.body[0].details[0];
    assert.equal(changed.name, 'Summer');
    assert.equal(changed.daysInfo[0].daysInfoId, entry.daysInfo[0].daysInfoId);
    assert.equal(changed.daysInfo.length, 2);

    assertValidation(await s.t.api.get(`${url}?from=2026-07-01T00:00:00Z&to=2026-07-08T00:00:00Z`), 'querystring.psm-ids');
    assertValidation(await s.t.api.get(`${url}?psmIds=${s.host}`));
    assertCode(
      await s.t.api.put(`${url}/${randomUUID()}`, {
        psmId: s.host,
        type: 'WORKING_HOURS',
        startDateTime: '2026-01-01T00:00:00Z',
        daysInfo: [],
      }),
      404,
      'WORK_HOURS_NOT_FOUND',
    );
  });

  test('AVAILABILITY names encounter templates of the formation; other bad rules are 400s', async () => {
    const s = await setup();
    const url = `${s.t.base}/calendar/work-hours`;
    const rule = {
      psmId: s.host,
      type: 'AVAILABILITY',
      startDateTime: '2026-01-01T00:00:00Z',
      daysInfo: [{ day: 1, startTime: '09:00:00', endTime: '17:00:00' }],
    };
    assertValidation(await s.t.api.post(url, rule), 'body.encounters');
    assertValidation(await s.t.api.post(url, { ...rule, encounters: ['nope'] }), 'body.encounters.0');
    assertValidation(await s.t.api.post(url, { ...rule, encounters: ['check-in'], psmId: randomUUID() }), 'body.psmId');
    assertValidation(
      await s.t.api.post(url, {
        ...rule,
        encounters: ['check-in'],
        daysInfo: [{ day: 8, startTime: '09:00:00', endTime: '17:00:00' }],
      }),
    );
    assertValidation(
      await s.t.api.post(url, {
        ...rule,
        encounters: ['check-in'],
        daysInfo: [{ day: 1, startTime: '17:00:00', endTime: '09:00:00' }],
      }),
      'body.daysInfo.0.endTime',
    );
    const ok = await s.t.api.post(url, { ...rule, encounters: ['check-in'] });
    assert.equal(ok.status, 201, ok.text);
    assert.deepEqual(ok.body[0].details[0].encounters, ['check-in']);
  });

  test('availability windows follow the wall clock across the US/Pacific spring-forward, minus booked events', async () => {
    const s = await setup();
    await s.t.api.post(`${s.t.base}/calendar/work-hours`, {
      psmId: s.host,
      type: 'AVAILABILITY',
      startDateTime: '2026-03-01T00:00:00Z',
      daysInfo: daily('09:00:00', '12:00:00'),
      encounters: ['check-in'],
    });
    // Saturday 7 March is PST (-08:00), Sunday 8 March PDT (-07:00). A booking splits Sunday's window.
    await s.t.api.post(`${s.t.base}/calendar/events`, appointment(s, '2026-03-08T17:00:00Z', '2026-03-08T17:30:00Z'));
    const range = 'from=2026-03-07T00:00:00-08:00&to=2026-03-09T00:00:00-07:00';
    const available = await s.t.api.get(`${s.t.base}/calendar/available-psm-schedules?psmIds=${s.host}&${range}`);
    assert.equal(available.status, 200, available.text);
    const [entry] = available.body;
    assert.deepEqual(
      entry.workHours.map((w: { localStartDateTime: string; localEndDateTime: string }) => [
        w.localStartDateTime,
        w.localEndDateTime,
      ]),
      [
        ['2026-03-07T09:00:00.000-08:00', '2026-03-07T12:00:00.000-08:00'],
        ['2026-03-08T09:00:00.000-07:00', '2026-03-08T10:00:00.000-07:00'],
        ['2026-03-08T10:30:00.000-07:00', '2026-03-08T12:00:00.000-07:00'],
      ],
    );
    assert.deepEqual(entry.workHours[0].encounters, ['check-in']);
    assert.equal(entry.events.length, 1);
  });

  test('an OVERRIDE replaces the default rule on its days (Lord Howe member, 30-minute shift)', async () => {
    const s = await setup();
    const lordHowe = await member(s.t, 'lordhowe', 'Australia/Lord_Howe');
    const url = `${s.t.base}/calendar/work-hours`;
    await s.t.api.post(url, {
      psmId: lordHowe,
      type: 'AVAILABILITY',
      startDateTime: '2026-09-01T00:00:00Z',
      daysInfo: daily('09:00:00', '10:00:00'),
      encounters: ['check-in'],
    });
    await s.t.api.post(url, {
      psmId: lordHowe,
      type: 'AVAILABILITY',
      ruleType: 'OVERRIDE',
      name: 'PTO',
      startDateTime: '2026-10-04T00:00:00+10:30',
      endDateTime: '2026-10-05T00:00:00+11:00',
      daysInfo: [],
      encounters: ['check-in'],
    });
    const range = `from=${encodeURIComponent('2026-10-03T00:00:00+10:30')}&to=${encodeURIComponent('2026-10-06T00:00:00+11:00')}`;
    const available = await s.t.api.get(`${s.t.base}/calendar/available-psm-schedules?psmIds=${lordHowe}&${range}`);
    assert.deepEqual(
      available.body[0].workHours.map((w: { localStartDateTime: string }) => w.localStartDateTime),
      ['2026-10-03T09:00:00.000+10:30', '2026-10-05T09:00:00.000+11:00'],
    );
  });

  test('psm-schedules: one entry per member asked, with overlapping events both shown; full adds encounter info', async () => {
    const s = await setup();
    const idle = await member(s.t, 'idle');
    await s.t.api.post(`${s.t.base}/calendar/work-hours`, {
      psmId: s.host,
      type: 'WORKING_HOURS',
      startDateTime: '2026-01-01T00:00:00Z',
      daysInfo: daily('09:00:00', '17:00:00'),
    });
    const events = `${s.t.base}/calendar/events`;
    await s.t.api.post(events, appointment(s, '2026-07-06T16:00:00Z', '2026-07-06T17:00:00Z'));
    await s.t.api.post(events, appointment(s, '2026-07-06T16:30:00Z', '2026-07-06T17:30:00Z'));
    const range = 'from=2026-07-06T00:00:00Z&to=2026-07-07T00:00:00Z';
    const schedules = await s.t.api.get(`${s.t.base}/calendar/psm-schedules?psmIds=${s.host},${idle}&${range}`);
    assert.equal(schedules.status, 200, schedules.text);
    assert.deepEqual(
      schedules.body.map((e: { psmId: string; workHours: unknown[]; events: unknown[] }) => [
        e.psmId,
        e.workHours.length,
        e.events.length,
      ]),
      [
        [s.host, 1, 2],
        [idle, 0, 0],
      ],
    );
    const full = await s.t.api.get(`${s.t.base}/calendar/full-psm-schedules?psmIds=${s.host}&${range}`);
    assert.equal(full.body[0].events[0].encounterInfo, null);
    assertValidation(await s.t.api.get(`${s.t.base}/calendar/psm-schedules?${range}`));
  });
});
