import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestTenant,
  startApp,
  type TestTenant,
  uuidShape,
} from '../../../test/harness.ts';
import { fullFormation } from '../../../test/route-fixtures.ts';

/** POST .../patients/{id}/purge and GET .../patient-purges/{id} over HTTP (the every-area scan is in every-area.test.ts). */

const app = await startApp();
const t = await createTestTenant(app);
const purgeOf = (patientId: string) => `${t.base}/patients/${patientId}/purge`;

/** A care-team member of the tenant's instance. */
async function member(tenant: TestTenant, username: string): Promise<string> {
  const created = await tenant.api.post(`${tenant.admin}/users`, {
    username,
    email: `${username}@example.org`,
    firstName: 'Dana',
    lastName: username,
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(created.status, 201, created.text);
  return created.body.id;
}

describe('purging a patient', () => {
  test('202 with the purge and its URL; its job erases the patient and the purge reads DONE', async () => {
    const patient = await createPatient(t, { firstName: 'Grace', lastName: 'Hopper', phone: '+14155550111' });
    const kicked = await t.api.post(purgeOf(patient.id), { confirm: patient.id });
    assert.equal(kicked.status, 202, kicked.text);
    const purge = kicked.body;
    assert.match(purge.id, uuidShape);
    assert.equal(purge.patientId, patient.id);
    assert.equal(purge.status, 'QUEUED');
    assert.equal(purge.completedAt, null);
    assert.equal(kicked.headers['content-location'], `${t.base}/patient-purges/${purge.id}`);
    assert.deepEqual(purge.kept.map((k: { resource: string }) => k.resource).sort(), [
      'ACCESS_LOG',
      'AUDIT_EVENT',
      'PATIENT_PURGE',
    ]);

    // Asked again before its job ran: the same purge, no second one.
    const again = await t.api.post(purgeOf(patient.id), { confirm: patient.id });
    assert.equal(again.status, 202);
    assert.equal(again.body.id, purge.id);

    await app.jobs.drain();
    const done = await t.api.get(`${t.base}/patient-purges/${purge.id}`);
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.status, 'DONE');
    assert.ok(done.body.completedAt);
    assertCode(await t.api.get(`${t.base}/patients/${patient.id}`), 404, 'PATIENT_NOT_FOUND');
    // The purge is audited, with the patient's id and nothing else of theirs.
    const [purged] = await auditOf(t, { action: 'PATIENT_PURGED' });
    assert.equal(purged?.patientId, patient.id);
    assert.equal(purged?.entityId, patient.id);
    // A purge done: the patient is gone, so asking again is 404.
    assertCode(await t.api.post(purgeOf(patient.id), { confirm: patient.id }), 404, 'PATIENT_NOT_FOUND');
  });

  test("a calendar event naming the patient stays the care team's: its times and others kept, its free text cleared", async () => {
    const s = await createTestTenant(app, fullFormation());
    const host = await member(s, 'host');
    const patient = await createPatient(s, { firstName: 'Grace', lastName: 'Hopper' });
    const other = await createPatient(s, { firstName: 'Alan', lastName: 'Turing' });
    const at = { startDateTime: '2030-05-06T09:00:00.000Z', endDateTime: '2030-05-06T09:30:00.000Z', hostId: host };
    const event = async (body: Record<string, unknown>) => {
      const made = await s.api.post(`${s.base}/calendar/events`, { ...at, ...body });
      assert.equal(made.status, 201, made.text);
      return made.body as { id: string; updatedAt: string };
    };
    const visit = await event({
      eventTitle: 'Visit of Hopper',
      eventDescription: "Grace's results are in",
      eventType: 'APPOINTMENT',
      eventMode: 'IN-PERSON',
      additionalInfo: { note: 'Hopper' },
      externalEventMetadata: { source: 'Grace Hopper' },
      participants: [
        { participantId: patient.id, participantRole: 'patient' },
        { participantId: host, participantRole: 'psm' },
      ],
    });
    // A meeting naming no participant, on which the patient's encounter is built: it names them too.
    const review = await event({ eventTitle: 'Hopper case review', participants: [] });
    const encounter = await s.api.post(`${s.base}/patients/${patient.id}/encounters`, { calendarEventId: review.id });
    assert.equal(encounter.status, 201, encounter.text);
    const theirs = await event({
      eventTitle: 'Visit of Turing',
      participants: [{ participantId: other.id, participantRole: 'patient' }],
    });

    const kicked = await s.api.post(`${s.base}/patients/${patient.id}/purge`, { confirm: patient.id });
    assert.equal(kicked.status, 202, kicked.text);
    await app.jobs.drain();
    assert.equal((await s.api.get(`${s.base}/patient-purges/${kicked.body.id}`)).body.status, 'DONE');

    const kept = (await s.api.get(`${s.base}/calendar/events/${visit.id}`)).body;
    assert.equal(kept.eventTitle, '[removed]');
    assert.equal(kept.eventDescription, '[removed]');
    assert.equal(kept.additionalInfo, null);
    assert.equal(kept.externalEventMetadata, null);
    assert.deepEqual(
      [kept.startDateTime, kept.endDateTime, kept.eventType, kept.eventMode, kept.hostId],
      [at.startDateTime, at.endDateTime, 'APPOINTMENT', 'IN-PERSON', host],
    );
    assert.deepEqual(
      kept.participants.map((p: { participantId: string }) => p.participantId),
      [host],
    );
    const reviewed = (await s.api.get(`${s.base}/calendar/events/${review.id}`)).body;
    assert.equal(reviewed.eventTitle, '[removed]');
    assert.equal(reviewed.encounterInfo, null);
    // Another patient's event is untouched.
    const untouched = (await s.api.get(`${s.base}/calendar/events/${theirs.id}`)).body;
    assert.equal(untouched.eventTitle, 'Visit of Turing');
    assert.equal(untouched.updatedAt, theirs.updatedAt);
  });

  test('400 when the confirmation is not the patient id, or the body or id is malformed', async () => {
    const patient = await createPatient(t);
    assertCode(await t.api.post(purgeOf(patient.id), { confirm: randomUUID() }), 400, 'PURGE_NOT_CONFIRMED');
    assertValidation(await t.api.post(purgeOf(patient.id), {}), 'body.confirm');
    assertValidation(await t.api.post(purgeOf(patient.id), { confirm: patient.id, extra: 1 }));
    assertValidation(await t.api.post(purgeOf('not-a-uuid'), { confirm: 'not-a-uuid' }), 'params.patientId');
    assertValidation(await t.api.get(`${t.base}/patient-purges/not-a-uuid`), 'params.purgeId');
    // Nothing was queued: the patient is still there.
    assert.equal((await t.api.get(`${t.base}/patients/${patient.id}`)).status, 200);
  });

  test('401 without a token; 403 without PATIENT_PURGE, PATIENT_DELETE does not do', async () => {
    const patient = await createPatient(t);
    assertCode(await t.anonymous.post(purgeOf(patient.id), { confirm: patient.id }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const deleter = await t.apiWith(['PATIENT_READ', 'PATIENT_DELETE']);
    assertCode(await deleter.post(purgeOf(patient.id), { confirm: patient.id }), 403, 'ACCESS_DENIED');
    const kicked = await t.api.post(purgeOf(patient.id), { confirm: patient.id });
    assertCode(await deleter.get(`${t.base}/patient-purges/${kicked.body.id}`), 403, 'ACCESS_DENIED');
    assertCode(await t.anonymous.get(`${t.base}/patient-purges/${kicked.body.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const purger = await t.apiWith(['PATIENT_PURGE']);
    assert.equal((await purger.get(`${t.base}/patient-purges/${kicked.body.id}`)).status, 200);
    await app.jobs.drain();
  });

  test('404 for a missing patient and a missing purge', async () => {
    const id = randomUUID();
    assertCode(await t.api.post(purgeOf(id), { confirm: id }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patient-purges/${randomUUID()}`), 404, 'PATIENT_PURGE_NOT_FOUND');
  });

  test("another tenant's patient and purge are 404 or 403, and its patient is untouched", async () => {
    const other = await createTestTenant(app);
    const theirs = await createPatient(other);
    const ours = await createPatient(t);
    // Our token on their patient, through our tenant's path: not found there.
    assertCode(await t.api.post(purgeOf(theirs.id), { confirm: theirs.id }), 404, 'PATIENT_NOT_FOUND');
    // Our token on their tenant's path: refused before anything is read.
    const foreign = await t.api.post(`${other.base}/patients/${theirs.id}/purge`, { confirm: theirs.id });
    assert.equal(foreign.status, 403, foreign.text);
    const kicked = await t.api.post(purgeOf(ours.id), { confirm: ours.id });
    assertCode(await other.api.get(`${other.base}/patient-purges/${kicked.body.id}`), 404, 'PATIENT_PURGE_NOT_FOUND');
    await app.jobs.drain();
    assert.equal((await other.api.get(`${other.base}/patients/${theirs.id}`)).status, 200);
  });
});
