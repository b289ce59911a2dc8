import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertOutcome, createUser, errorsOf, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import { type Api, createPatient, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/**
 * Encounter (the encounters area) and CareTeam (the patients area), as docs/fhir.md maps them:
 * every answer validates against its US Core 6.1.0 profile, the required bindings' codes are
 * checked here (the validator checks none), and each search parameter, permission, tenant and
 * access-log rule holds over HTTP.
 */

const app = await startApp();

const ENCOUNTER_STATUSES = [
  'planned',
  'arrived',
  'triaged',
  'in-progress',
  'onleave',
  'finished',
  'cancelled',
  'entered-in-error',
  'unknown',
];
const CARE_TEAM_STATUSES = ['proposed', 'active', 'suspended', 'inactive', 'entered-in-error'];
const DATA_ABSENT = 'http://terminology.hl7.org/CodeSystem/data-absent-reason';
const TEMPLATES = 'https://cairn.health/fhir/CodeSystem/encounter-template';
const ENCOUNTER_IDS = 'https://cairn.health/fhir/sid/encounter-id';

const formation = () =>
  testFormation({
    encounterTemplates: [
      { name: 'intake', title: 'Intake', deliveryMethod: 'VIDEO' },
      { name: 'check-in', title: 'Check-in' },
    ],
  });

/** A user who can host an appointment in the instance. */
async function host(t: TestTenant) {
  return (
    await createUser(t, { firstName: 'Hana', lastName: 'Host', roles: [{ permissionName: 'admin', instanceName: 'sandbox' }] })
  ).id as string;
}

async function createEncounter(t: TestTenant, patientId: string, body: Record<string, unknown>) {
  const response = await t.api.post(`${t.base}/patients/${patientId}/encounters`, body);
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; jsonBody: Record<string, any> };
}

async function changeEncounter(t: TestTenant, patientId: string, id: string, body: Record<string, unknown>) {
  const response = await t.api.patch(`${t.base}/patients/${patientId}/encounters/${id}`, body);
  assert.equal(response.status, 200, response.text);
}

/** The ids a search finds, after checking the Bundle. */
async function found(api: Api, t: TestTenant, query: string) {
  const response = await api.get(`${fhirBase(t)}/${query}`);
  assert.equal(response.status, 200, `${query}: ${response.text}`);
  assert.deepEqual([response.body.resourceType, response.body.type], ['Bundle', 'searchset']);
  return idsOf(response.body);
}

/** Every page of a search by its next links: the ids in the order met, and the number of pages. */
async function allPages(t: TestTenant, query: string) {
  const ids: string[] = [];
  let url: string | undefined = `${fhirBase(t)}/${query}`;
  let pages = 0;
  while (url) {
    const page: { status: number; text: string; body: any } = await t.api.get(url);
    assert.equal(page.status, 200, page.text);
    pages += 1;
    ids.push(...(page.body.entry ?? []).map((entry: { resource: { id: string } }) => entry.resource.id));
    const next = (page.body.link as { relation: string; url: string }[]).find((link) => link.relation === 'next');
    if (next) assert.match(next.url, /_cursor=/);
    url = next ? new URL(next.url).pathname + new URL(next.url).search : undefined;
  }
  return { ids, pages };
}

describe('FHIR R4: Encounter (US Core 6.1.0 Encounter)', () => {
  /** A patient's encounters of each kind, and another patient's bare one. */
  async function encounters(t: TestTenant) {
    const hostId = await host(t);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', phone: '+14155550123' });
    const other = await createPatient(t, { firstName: 'Bo', lastName: 'Other' });
    const visit = await createEncounter(t, patient.id, {
      title: 'First visit',
      notes: 'Bring the glucose log',
      templateName: 'check-in',
      status: 'OPEN',
      location: 'Clinic, room 2',
      currentScheduledAppointment: {
        startDateTime: '2030-07-01T16:00:00Z',
        endDateTime: '2030-07-01T16:30:00Z',
        hostId,
        eventMode: 'IN-PERSON',
      },
    });
    const video = await createEncounter(t, patient.id, {
      templateName: 'intake',
      status: 'ACTIVE',
      location: 'https://video.example.org/room/1',
      currentScheduledAppointment: { startDateTime: '2030-07-03T16:00:00Z', endDateTime: '2030-07-03T16:45:00Z', hostId },
    });
    await changeEncounter(t, patient.id, video.id, { status: 'FINALIZED' });
    const cancelled = await createEncounter(t, patient.id, { templateName: 'check-in' });
    await changeEncounter(t, patient.id, cancelled.id, { status: 'CANCELLED' });
    // The least an encounter has: no template, no appointment, no owner (an API client made it).
    const bare = await createEncounter(t, other.id, {});
    return { hostId, patient, other, visit, video, cancelled, bare };
  }

  test('each encounter validates against US Core Encounter, read and searched, with valid status codes', async () => {
    const t = await createTestTenant(app, formation());
    const { hostId, patient, other, visit, video, cancelled, bare } = await encounters(t);

    const read = await t.api.get(`${fhirBase(t)}/Encounter/${visit.id}`);
    assert.equal(read.status, 200, read.text);
    assert.match(String(read.headers['content-type']), /^application\/fhir\+json/);
    const encounter = read.body;
    assert.deepEqual(usCoreErrors(encounter, 'us-core-encounter'), []);
    assert.deepEqual(encounter.identifier, [{ use: 'usual', system: ENCOUNTER_IDS, value: visit.id }]);
    // US Core 6.1.0's serviceProvider: the instance, served as an Organization of its id.
    assert.deepEqual(encounter.serviceProvider, { reference: `Organization/${t.instance.id}` });
    assert.equal(encounter.status, 'planned');
    assert.deepEqual(encounter.class, {
      system: 'http://terminology.hl7.org/CodeSystem/v3-ActCode',
      code: 'AMB',
      display: 'ambulatory',
    });
    assert.deepEqual(encounter.type, [
      { coding: [{ system: TEMPLATES, code: 'check-in', display: 'Check-in' }], text: 'Check-in' },
    ]);
    assert.deepEqual(encounter.subject, { reference: `Patient/${patient.id}` });
    assert.deepEqual(encounter.period, { start: '2030-07-01T16:00:00.000Z', end: '2030-07-01T16:30:00.000Z' });
    assert.deepEqual(encounter.participant, [
      {
        type: [
          {
            coding: [
              {
                system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType',
                code: 'PPRF',
                display: 'primary performer',
              },
            ],
          },
        ],
        individual: { reference: `Practitioner/${hostId}` },
      },
    ]);
    assert.deepEqual(encounter.appointment, [{ reference: `Appointment/${visit.jsonBody.calendarEventId}` }]);
    assert.equal(
      (await t.api.get(`${fhirBase(t)}/${encounter.appointment[0].reference}`)).status,
      200,
      'the Appointment is served',
    );
    // The place, as a Location that reads.
    assert.equal(encounter.location[0].location.display, 'Clinic, room 2');
    const place = await t.api.get(`${fhirBase(t)}/${encounter.location[0].location.reference}`);
    assert.equal(place.status, 200, place.text);
    assert.equal(place.body.name, 'Clinic, room 2');

    const videoVisit = (await t.api.get(`${fhirBase(t)}/Encounter/${video.id}`)).body;
    assert.deepEqual(usCoreErrors(videoVisit, 'us-core-encounter'), []);
    assert.deepEqual([videoVisit.status, videoVisit.class.code, videoVisit.type[0].coding[0].code], ['finished', 'VR', 'intake']);
    assert.equal(videoVisit.location, undefined, 'a video address is not a place');

    const minimal = (await t.api.get(`${fhirBase(t)}/Encounter/${bare.id}`)).body;
    assert.deepEqual(usCoreErrors(minimal, 'us-core-encounter'), []);
    assert.equal(minimal.status, 'planned');
    assert.deepEqual(minimal.class, { system: DATA_ABSENT, code: 'unknown', display: 'Unknown' });
    assert.deepEqual(minimal.type, [{ coding: [{ system: DATA_ABSENT, code: 'unknown', display: 'Unknown' }] }]);
    assert.deepEqual(minimal.subject, { reference: `Patient/${other.id}` });
    for (const absent of ['participant', 'period', 'appointment', 'location']) assert.equal(minimal[absent], undefined, absent);
    assert.equal((await t.api.get(`${fhirBase(t)}/Encounter/${cancelled.id}`)).body.status, 'cancelled');

    const all = (await t.api.get(`${fhirBase(t)}/Encounter?_count=100`)).body;
    assert.deepEqual(idsOf(all), [visit.id, video.id, cancelled.id, bare.id].sort());
    for (const entry of all.entry) {
      assert.deepEqual(usCoreErrors(entry.resource, 'us-core-encounter'), []);
      // Encounter.status is a required binding: its codes are checked here.
      assert.ok(ENCOUNTER_STATUSES.includes(entry.resource.status), entry.resource.status);
      assert.ok(entry.fullUrl.endsWith(`/fhir/R4/Encounter/${entry.resource.id}`), entry.fullUrl);
    }
  });

  test('searches by patient, subject, date, status, type, identifier, _id and _lastUpdated; AND, OR, counts and pages', async () => {
    const t = await createTestTenant(app, formation());
    const since = app.services.clock.now().toISOString();
    const { patient, other, visit, video, cancelled, bare } = await encounters(t);
    const search = (query: string) => found(t.api, t, `Encounter?${query}`);
    const mine = [visit.id, video.id, cancelled.id].sort();

    assert.deepEqual(await search(`patient=Patient/${patient.id}`), mine);
    assert.deepEqual(await search(`subject=${patient.id}`), mine);
    assert.deepEqual(await search(`patient=${other.id}`), [bare.id]);
    assert.deepEqual(await search(`patient=${patient.id},${other.id}`), [...mine, bare.id].sort(), 'a comma is OR');
    assert.deepEqual(await search(`patient=${patient.id}&patient=${other.id}`), [], 'a repeat is AND');
    assert.deepEqual(await search(`patient=${randomUUID()}`), []);
    assert.deepEqual(await search('patient=not-an-id'), []);

    // date: the appointment's start; an encounter without one has no date.
    assert.deepEqual(await search('date=2030-07-01'), [visit.id]);
    assert.deepEqual(await search('date=ge2030-07-01&date=lt2030-07-02'), [visit.id]);
    assert.deepEqual(await search('date=2030-07-01,2030-07-03'), [visit.id, video.id].sort());
    assert.deepEqual(await search('date=gt2030-07-01'), [video.id]);
    assert.deepEqual(await search('date=2030-07'), [visit.id, video.id].sort());
    assert.deepEqual(await search(`date=2030&patient=${other.id}`), []);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Encounter?date=July`), 400, 'VALIDATION_ERROR');

    assert.deepEqual(await search('status=planned'), [visit.id, bare.id].sort());
    assert.deepEqual(await search('status=planned,cancelled'), [visit.id, bare.id, cancelled.id].sort());
    assert.deepEqual(await search(`status=finished&patient=${patient.id}`), [video.id]);
    assert.deepEqual(await search(`status=finished&patient=${other.id}`), []);
    assert.deepEqual(await search('status=http://hl7.org/fhir/encounter-status|in-progress'), []);
    assert.deepEqual(await search('status=arrived'), [], 'a code Cairn never shows');
    assert.deepEqual(await search('status=unknown'), []);
    const badStatus = await t.api.get(`${fhirBase(t)}/Encounter?status=done`);
    assertOutcome(badStatus, 400, 'VALIDATION_ERROR');
    assert.match(badStatus.body.issue[0].diagnostics, /status/);

    assert.deepEqual(await search('type=check-in'), [visit.id, cancelled.id].sort());
    assert.deepEqual(await search(`type=${TEMPLATES}|intake`), [video.id]);
    assert.deepEqual(await search(`type=${DATA_ABSENT}|unknown`), [bare.id]);
    assert.deepEqual(await search('type=http://example.org/types|intake'), []);
    assert.deepEqual(await search(`type=intake,check-in&status=finished`), [video.id]);

    // class: the appointment's mode as classOf shows it; data-absent-reason's unknown without an appointment.
    const ACT_CODE = 'http://terminology.hl7.org/CodeSystem/v3-ActCode';
    assert.deepEqual(await search(`class=${ACT_CODE}|AMB`), [visit.id]);
    assert.deepEqual(await search(`class=VR&patient=${patient.id}`), [video.id]);
    assert.deepEqual(await search(`class=${DATA_ABSENT}|unknown`), [cancelled.id, bare.id].sort());
    assert.deepEqual(await search(`class=unknown&patient=${other.id}`), [bare.id]);
    assert.deepEqual(await search('class=IMP'), [], 'a code Cairn never shows');
    assert.deepEqual(await search('class=http://example.org/classes|AMB'), []);

    assert.deepEqual(await search(`identifier=${ENCOUNTER_IDS}|${visit.id}`), [visit.id]);
    assert.deepEqual(await search(`identifier=${video.id}`), [video.id]);
    assert.deepEqual(await search(`identifier=http://example.org/ids|${video.id}`), []);
    assert.deepEqual(await search(`_id=${bare.id},${visit.id}`), [bare.id, visit.id].sort());
    assert.deepEqual(await search(`_lastUpdated=ge${since}`), [...mine, bare.id].sort());
    assert.deepEqual(await search(`_lastUpdated=lt${since}`), []);

    const count = await t.api.get(`${fhirBase(t)}/Encounter?_summary=count&patient=${patient.id}`);
    assert.deepEqual([count.body.type, count.body.total, count.body.entry], ['searchset', 3, undefined]);
    const paged = await allPages(t, `Encounter?patient=${patient.id}&_count=1`);
    assert.deepEqual(paged, { ids: mine, pages: 3 }, 'in id order, each once');
  });

  test("ENCOUNTER_READ is needed; 404 for a missing, deleted or another tenant's encounter; reads name their patients", async () => {
    const t = await createTestTenant(app, formation());
    const other = await createTestTenant(app, formation());
    const theirPatient = await createPatient(other, { firstName: 'Bo', lastName: 'Other' });
    const theirs = await createEncounter(other, theirPatient.id, {});
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const mine = await createEncounter(t, patient.id, {
      templateName: 'check-in',
      currentScheduledAppointment: {
        startDateTime: '2030-07-01T16:00:00Z',
        endDateTime: '2030-07-01T16:30:00Z',
        hostId: await host(t),
      },
    });
    const gone = await createEncounter(t, patient.id, {});

    assertOutcome(await t.api.get(`${fhirBase(t)}/Encounter/${theirs.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/Encounter/${randomUUID()}`), 404, 'DT_RECORD_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/Encounter/not-a-uuid`), 404, 'DT_RECORD_NOT_FOUND');
    assert.deepEqual(await found(t.api, t, `Encounter?patient=${theirPatient.id}`), []);
    assert.deepEqual(await found(t.api, t, `Encounter?_id=${theirs.id}`), []);
    assert.deepEqual(await found(other.api, other, 'Encounter'), [theirs.id], 'B sees only its own');
    // The encounter's disposition is a CDT record of the patient too, but not an encounter.
    assert.ok(mine.jsonBody.dispositionId);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Encounter/${mine.jsonBody.dispositionId}`), 404, 'DT_RECORD_NOT_FOUND');

    const deleted = await t.api.delete(`${t.base}/patients/${patient.id}/encounters/${gone.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assertOutcome(await t.api.get(`${fhirBase(t)}/Encounter/${gone.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assert.deepEqual(await found(t.api, t, `Encounter?patient=${patient.id}`), [mine.id]);

    const patientReader = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await patientReader.get(`${fhirBase(t)}/Encounter/${mine.id}`), 403, 'ACCESS_DENIED');
    assertOutcome(await patientReader.get(`${fhirBase(t)}/Encounter`), 403, 'ACCESS_DENIED');
    const encounterReader = await t.apiWith(['ENCOUNTER_READ']);
    assert.deepEqual(await found(encounterReader, t, 'Encounter'), [mine.id]);

    assert.equal((await t.api.get(`${fhirBase(t)}/Encounter/${mine.id}`)).status, 200);
    assert.equal((await t.api.get(`${fhirBase(t)}/Encounter?patient=${patient.id}`)).status, 200);
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const [page, read] = (log.body.data as any[]).filter(
      (record) => record.operation.includes('/fhir/R4/Encounter') && record.outcome === 200,
    );
    assert.deepEqual([read.resourceType, read.patientIds, read.recordIds], ['ENCOUNTER', [patient.id], [mine.id]]);
    assert.deepEqual([page.resourceType, page.patientIds], ['ENCOUNTER', [patient.id]]);
  });
});

describe('FHIR R4: CareTeam (US Core 6.1.0 CareTeam)', () => {
  /** Three patients: one with a team of two (the second its point of contact), one never given one, one whose team was emptied. */
  async function teams(t: TestTenant) {
    const coach = (await createUser(t, { firstName: 'Cy', lastName: 'Coach' })).id as string;
    const nurse = (await createUser(t, { firstName: 'Nia', lastName: 'Nurse' })).id as string;
    const team = await createPatient(t, {
      firstName: 'Ada',
      lastName: 'Quill',
      careTeam: [
        { id: coach, pointOfContact: false },
        { id: nurse, pointOfContact: true },
      ],
    });
    const alone = await createPatient(t, { firstName: 'Bo', lastName: 'Alone' });
    const emptied = await createPatient(t, { firstName: 'Cal', lastName: 'Emptied', careTeam: [{ id: nurse }] });
    const changed = await t.api.patch(`${t.base}/patients/${emptied.id}`, { careTeam: [] });
    assert.equal(changed.status, 200, changed.text);
    return { coach, nurse, team, alone, emptied };
  }

  test('a team validates against US Core CareTeam: its members in order, then the patient; one without members is inactive', async () => {
    const t = await createTestTenant(app);
    const { coach, nurse, team, alone, emptied } = await teams(t);

    const read = await t.api.get(`${fhirBase(t)}/CareTeam/${team.id}`);
    assert.equal(read.status, 200, read.text);
    const careTeam = read.body;
    assert.deepEqual(usCoreErrors(careTeam, 'us-core-careteam'), []);
    assert.equal(careTeam.id, team.id);
    assert.equal(careTeam.status, 'active');
    assert.deepEqual(careTeam.subject, { reference: `Patient/${team.id}` });
    const coordinator = {
      system: 'http://nucc.org/provider-taxonomy',
      code: '171M00000X',
      display: 'Case Manager/Care Coordinator',
    };
    assert.deepEqual(careTeam.participant, [
      { role: [{ coding: [coordinator], text: 'Care coordinator' }], member: { reference: `Practitioner/${coach}` } },
      {
        role: [{ coding: [coordinator], text: 'Care coordinator, point of contact' }],
        member: { reference: `Practitioner/${nurse}` },
      },
      {
        role: [{ coding: [{ system: 'http://snomed.info/sct', code: '116154003', display: 'Patient (person)' }] }],
        member: { reference: `Patient/${team.id}` },
      },
    ]);
    for (const participant of careTeam.participant) {
      const member = (await t.api.get(`${fhirBase(t)}/${participant.member.reference}`)).status;
      assert.equal(member, 200, `${participant.member.reference} is served`);
    }

    for (const lone of [alone, emptied]) {
      const body = (await t.api.get(`${fhirBase(t)}/CareTeam/${lone.id}`)).body;
      assert.deepEqual(usCoreErrors(body, 'us-core-careteam'), []);
      assert.equal(body.status, 'inactive');
      assert.deepEqual(
        body.participant.map((participant: any) => participant.member.reference),
        [`Patient/${lone.id}`],
      );
    }

    const all = (await t.api.get(`${fhirBase(t)}/CareTeam?_count=100`)).body;
    assert.deepEqual(idsOf(all), [team.id, alone.id, emptied.id].sort());
    for (const entry of all.entry) {
      assert.deepEqual(usCoreErrors(entry.resource, 'us-core-careteam'), []);
      // CareTeam.status is a required binding: its codes are checked here.
      assert.ok(CARE_TEAM_STATUSES.includes(entry.resource.status), entry.resource.status);
      // US Core: participant.role 1..1 (base R4 allows more).
      for (const participant of entry.resource.participant) assert.equal(participant.role.length, 1);
    }
  });

  test('searches by patient, subject, status, _id and _lastUpdated; AND, OR, counts and pages', async () => {
    const t = await createTestTenant(app);
    const { nurse, team, alone, emptied } = await teams(t);
    const search = (query: string) => found(t.api, t, `CareTeam?${query}`);

    assert.deepEqual(await search(`patient=${team.id}`), [team.id]);
    assert.deepEqual(await search(`subject=Patient/${alone.id}`), [alone.id]);
    assert.deepEqual(await search(`patient=${team.id},${alone.id}`), [team.id, alone.id].sort());
    assert.deepEqual(await search(`patient=${team.id}&patient=${alone.id}`), []);
    assert.deepEqual(await search(`patient=${randomUUID()}`), []);
    assert.deepEqual(await search('status=active'), [team.id]);
    assert.deepEqual(await search('status=inactive'), [alone.id, emptied.id].sort());
    assert.deepEqual(await search('status=active,inactive'), [team.id, alone.id, emptied.id].sort());
    assert.deepEqual(await search(`patient=${team.id}&status=active`), [team.id]);
    assert.deepEqual(await search(`patient=${alone.id}&status=active`), []);
    // role (US Core's patient+role): a care coordinator is on a team with members; the patient on every team.
    assert.deepEqual(await search('role=http://nucc.org/provider-taxonomy|171M00000X'), [team.id]);
    assert.deepEqual(await search(`patient=${alone.id}&role=http://snomed.info/sct|116154003`), [alone.id]);
    assert.deepEqual(await search(`patient=${alone.id}&role=171M00000X`), []);
    assert.deepEqual(await search('role=http://example.org/roles|171M00000X'), []);
    assert.deepEqual(await search('status=http://hl7.org/fhir/care-team-status|active'), [team.id]);
    assert.deepEqual(await search('status=proposed'), []);
    assertOutcome(await t.api.get(`${fhirBase(t)}/CareTeam?status=done`), 400, 'VALIDATION_ERROR');
    assert.deepEqual(await search(`_id=${emptied.id}`), [emptied.id]);

    // A change to the team is the team's last update (it stamps the patient).
    const before = app.services.clock.now().toISOString();
    const added = await t.api.patch(`${t.base}/patients/${alone.id}`, { careTeam: [{ id: nurse }] });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(await search(`_lastUpdated=ge${before}`), [alone.id]);
    assert.deepEqual(await search('status=active'), [team.id, alone.id].sort());

    const count = await t.api.get(`${fhirBase(t)}/CareTeam?_summary=count&status=active`);
    assert.deepEqual([count.body.type, count.body.total], ['searchset', 2]);
    const paged = await allPages(t, 'CareTeam?_count=2');
    assert.deepEqual(paged, { ids: [team.id, alone.id, emptied.id].sort(), pages: 2 });
  });

  test("PATIENT_READ is needed; 404 for a missing, deleted or another tenant's patient; reads name the patient", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const theirs = await createPatient(other, { firstName: 'Bo', lastName: 'Other' });
    const { team, alone } = await teams(t);

    assertOutcome(await t.api.get(`${fhirBase(t)}/CareTeam/${theirs.id}`), 404, 'PATIENT_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/CareTeam/${randomUUID()}`), 404, 'PATIENT_NOT_FOUND');
    assert.deepEqual(await found(t.api, t, `CareTeam?patient=${theirs.id}`), []);
    assert.deepEqual(await found(other.api, other, 'CareTeam'), [theirs.id], 'B sees only its own');
    const deleted = await t.api.delete(`${t.base}/patients/${alone.id}`);
    assert.ok(deleted.status < 300, deleted.text);
    assertOutcome(await t.api.get(`${fhirBase(t)}/CareTeam/${alone.id}`), 404, 'PATIENT_NOT_FOUND');

    const encounterReader = await t.apiWith(['ENCOUNTER_READ']);
    assertOutcome(await encounterReader.get(`${fhirBase(t)}/CareTeam/${team.id}`), 403, 'ACCESS_DENIED');
    assertOutcome(await encounterReader.get(`${fhirBase(t)}/CareTeam`), 403, 'ACCESS_DENIED');
    const patientReader = await t.apiWith(['PATIENT_READ']);
    assert.equal((await patientReader.get(`${fhirBase(t)}/CareTeam/${team.id}`)).status, 200);

    assert.equal((await t.api.get(`${fhirBase(t)}/CareTeam?patient=${team.id}`)).status, 200);
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const records = (log.body.data as any[]).filter((record) => record.operation.includes('/fhir/R4/CareTeam'));
    const [page] = records;
    const read = records.find((record) => record.operation.endsWith('/CareTeam/:id') && record.recordIds?.[0] === team.id);
    assert.deepEqual([page.resourceType, page.patientIds], ['CARE_TEAM', [team.id]]);
    assert.deepEqual([read.resourceType, read.patientIds, read.recordIds], ['CARE_TEAM', [team.id], [team.id]]);
    const refused = records.find((record) => record.operation.endsWith('/CareTeam/:id') && record.patientIds[0] === theirs.id);
    assert.ok(refused, 'a read of a CareTeam not found is an attempt on that patient, as Patient/{id} is');
  });
});

describe('FHIR R4: _include', () => {
  test('CareTeam:participant adds the members and the patient once, as include entries; the self and next links keep it', async () => {
    const t = await createTestTenant(app);
    const coach = await createUser(t, { firstName: 'Cy', lastName: 'Coach' });
    const nurse = await createUser(t, { firstName: 'Nia', lastName: 'Nurse' });
    const first = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', careTeam: [{ id: coach.id }, { id: nurse.id }] });
    const second = await createPatient(t, { firstName: 'Bo', lastName: 'Quill', careTeam: [{ id: nurse.id }] });
    const bundle = (await t.api.get(`${fhirBase(t)}/CareTeam?status=active&_include=CareTeam:participant:Practitioner&_count=1`))
      .body;
    const modes = (mode: string) =>
      (bundle.entry as { search: { mode: string }; resource: { resourceType: string; id: string } }[])
        .filter((entry) => entry.search.mode === mode)
        .map((entry) => `${entry.resource.resourceType}/${entry.resource.id}`)
        .sort();
    const [shown] = modes('match');
    const members = shown === `CareTeam/${first.id}` ? [coach.id, nurse.id] : [nurse.id];
    assert.deepEqual(modes('include'), members.map((id) => `Practitioner/${id}`).sort());
    for (const entry of bundle.entry) assert.deepEqual(errorsOf(entry.resource), []);
    const links = Object.fromEntries(bundle.link.map((link: { relation: string; url: string }) => [link.relation, link.url]));
    assert.match(links.self, /_include=CareTeam%3Aparticipant%3APractitioner/);
    assert.match(links.next, /_include=CareTeam%3Aparticipant%3APractitioner/);

    const both = (await t.api.get(`${fhirBase(t)}/CareTeam?patient=${second.id}&_include=CareTeam:participant`)).body;
    assert.deepEqual(
      both.entry.map(
        (entry: { resource: { resourceType: string; id: string } }) => `${entry.resource.resourceType}/${entry.resource.id}`,
      ),
      [`CareTeam/${second.id}`, `Practitioner/${nurse.id}`, `Patient/${second.id}`],
    );
    const metadata = (await t.anonymous.get(`${fhirBase(t)}/metadata`)).body;
    const careTeam = metadata.rest[0].resource.find((resource: { type: string }) => resource.type === 'CareTeam');
    assert.ok(careTeam.searchInclude.includes('CareTeam:participant'));
  });

  test("a Task's patient and owner; what the caller may not read is left out; an unknown include is ignored", async () => {
    const t = await createTestTenant(app);
    const owner = await createUser(t, { firstName: 'Oz', lastName: 'Owner' });
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const task = await t.api.post(`${t.base}/tasks`, {
      name: 'Call',
      status: 'TODO',
      priority: 'LOW',
      assignee: { id: owner.id },
      patient: { id: patient.id },
    });
    assert.equal(task.status, 201, task.text);
    const entriesOf = async (api: Api, include: string) =>
      (await api.get(`${fhirBase(t)}/Task?patient=${patient.id}&${include}`)).body.entry.map(
        (entry: { resource: { resourceType: string; id: string } }) => `${entry.resource.resourceType}/${entry.resource.id}`,
      );
    assert.deepEqual(await entriesOf(t.api, '_include=Task:patient&_include=Task:owner'), [
      `Task/${task.body.id}`,
      `Patient/${patient.id}`,
      `Practitioner/${owner.id}`,
    ]);
    const taskReader = await t.apiWith(['TASK_READ', 'PATIENT_READ']);
    assert.deepEqual(await entriesOf(taskReader, '_include=Task:patient&_include=Task:owner'), [
      `Task/${task.body.id}`,
      `Patient/${patient.id}`,
    ]);
    const ignored = await t.api.get(`${fhirBase(t)}/Task?patient=${patient.id}&_include=Task:nothing&_include=Goal:patient`);
    assert.equal(ignored.body.entry.length, 1);
    assert.doesNotMatch(ignored.body.link[0].url, /_include/);
  });
});
