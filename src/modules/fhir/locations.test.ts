import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertOutcome, createUser, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import { createPatient, createTestInstance, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * Location (the calendar area: the places in-person appointments are at, kept by the encounters'
 * writes), as docs/fhir.md maps it: one per instance and text in any case, valid against US Core
 * 6.1.0 Location, named by the Appointment it is the place of.
 */

const app = await startApp();

/** An encounter of a new patient, with an appointment of this mode (none: no appointment) at `location`. */
async function visit(t: TestTenant, hostId: string, location: string, eventMode?: string) {
  const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', phone: '+14155550123' });
  const appointment = eventMode && {
    startDateTime: '2030-07-01T16:00:00Z',
    endDateTime: '2030-07-01T16:30:00Z',
    hostId,
    eventMode,
  };
  const response = await t.api.post(`${t.base}/patients/${patient.id}/encounters`, {
    location,
    ...(appointment ? { currentScheduledAppointment: appointment } : {}),
  });
  assert.equal(response.status, 201, response.text);
  return { patientId: patient.id as string, id: response.body.id as string };
}

const hostOf = async (t: TestTenant) =>
  (await createUser(t, { roles: [{ permissionName: 'admin', instanceName: t.instance.name }] })).id as string;

async function search(t: TestTenant, query: string) {
  const response = await t.api.get(`${fhirBase(t)}/Location${query}`);
  assert.equal(response.status, 200, `${query}: ${response.text}`);
  for (const entry of response.body.entry ?? []) assert.deepEqual(usCoreErrors(entry.resource, 'us-core-location'), []);
  return response.body;
}

describe('FHIR R4: Location (US Core 6.1.0 Location)', () => {
  test('each in-person place once, read, searched by name, valid; an appointment names its place', async () => {
    const t = await createTestTenant(app);
    const hostId = await hostOf(t);
    const clinic = await visit(t, hostId, 'Clinic, room 2', 'IN-PERSON');
    await visit(t, hostId, '  clinic, ROOM 2 ', 'IN-PERSON');
    await visit(t, hostId, 'Home visit', undefined);
    await visit(t, hostId, 'https://video.example.org/room/1', 'VIDEO');
    const call = await visit(t, hostId, 'Ignored', 'CALL');

    const all = await search(t, '');
    assert.deepEqual(
      all.entry.map((entry: { resource: { name: string } }) => entry.resource.name),
      ['Clinic, room 2'],
      'in person only, one per text in any case; none without an appointment, a call or a video',
    );
    const place = all.entry[0].resource;
    const read = await t.api.get(`${fhirBase(t)}/Location/${place.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(usCoreErrors(read.body, 'us-core-location'), []);
    assert.deepEqual(
      [read.body.status, read.body.name, read.body.mode, read.body.managingOrganization],
      ['active', 'Clinic, room 2', 'instance', { reference: `Organization/${t.instance.id}` }],
    );
    assert.equal((await t.api.get(`${fhirBase(t)}/${read.body.managingOrganization.reference}`)).status, 200);

    // A change of an in-person encounter's location keeps the new place too.
    const moved = await t.api.patch(`${t.base}/patients/${clinic.patientId}/encounters/${clinic.id}`, {
      location: 'Annex',
    });
    assert.equal(moved.status, 200, moved.text);
    // A call's location is the patient's phone: never a place.
    const called = await t.api.patch(`${t.base}/patients/${call.patientId}/encounters/${call.id}`, {
      location: 'Somewhere',
    });
    assert.equal(called.status, 200, called.text);
    const annex = (await search(t, '?name=ANN')).entry.map((entry: { resource: { id: string; name: string } }) => entry.resource);
    assert.deepEqual(
      annex.map((found: { name: string }) => found.name),
      ['Annex'],
    );
    assert.deepEqual(idsOf(await search(t, '?name=clinic,annex')), [place.id, annex[0].id].sort());
    assert.deepEqual(idsOf(await search(t, '?name=room')), [], 'the start of the text');
    assert.deepEqual(idsOf(await search(t, '?address=Clinic')), [], 'Cairn keeps no address');
    assert.deepEqual(idsOf(await search(t, `?_id=${place.id}`)), [place.id]);
    assert.equal((await search(t, '?_summary=count')).total, 2);

    // The appointment names the place where its encounter is now.
    const event = await t.api.get(`${fhirBase(t)}/Appointment?patient=${clinic.patientId}`);
    assert.equal(event.status, 200, event.text);
    const actors = event.body.entry[0].resource.participant.map(
      (participant: { actor: { reference: string } }) => participant.actor.reference,
    );
    assert.ok(actors.includes(`Location/${annex[0].id}`), JSON.stringify(actors));
  });

  test("401 without a token, 403 without CALENDAR_READ, 404 for another instance's or tenant's; 400 for a bad parameter; no access record", async () => {
    const t = await createTestTenant(app);
    const second = await createTestInstance(t, 'second');
    const other = await createTestTenant(app);
    await visit(t, await hostOf(t), 'Clinic', 'IN-PERSON');
    await visit(second, await hostOf(second), 'Clinic', 'IN-PERSON');
    await visit(other, await hostOf(other), 'Clinic', 'IN-PERSON');
    const [mine] = idsOf(await search(t, ''));
    const [ours] = idsOf(await search(second, ''));
    const [theirs] = idsOf(await search(other, ''));
    assert.equal(new Set([mine, ours, theirs]).size, 3, "each instance's place is its own");
    const base = fhirBase(t);
    assertOutcome(await t.anonymous.get(`${base}/Location/${mine}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const outsider = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await outsider.get(`${base}/Location/${mine}`), 403, 'ACCESS_DENIED');
    assertOutcome(await outsider.get(`${base}/Location?name=c`), 403, 'ACCESS_DENIED');
    for (const id of [ours, theirs, randomUUID(), 'not-a-uuid'])
      assertOutcome(await t.api.get(`${base}/Location/${id}`), 404, 'LOCATION_NOT_FOUND');
    assert.deepEqual(idsOf(await search(t, `?_id=${ours},${theirs}`)), []);
    assertOutcome(await t.api.get(`${base}/Location?name=a%01`), 400, 'VALIDATION_ERROR');
    assertOutcome(await t.api.get(`${base}/Location?address=a%01`), 400, 'VALIDATION_ERROR');

    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    assert.deepEqual(
      (log.body.data as { operation: string }[]).filter((record) => record.operation.includes('Location')),
      [],
    );
  });
});
