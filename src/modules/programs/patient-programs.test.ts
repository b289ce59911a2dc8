import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPatient, createTestTenant, startApp } from '../../test/harness.ts';
import { enrol, programFormation, programKeys, programsPath } from '../../test/programs.ts';

/** Programs seen from the patients area: `patientPrograms` and the list's `programName` filter. */

const app = await startApp();

describe('patientPrograms on patients', () => {
  test('GET /patients/{id} lists the enrolments, as the program routes answer them, by programName', async () => {
    const t = await createTestTenant(app, programFormation());
    const patient = await createPatient(t);
    assert.deepEqual(patient.patientPrograms, []);
    const path = programsPath(t, patient.id);
    await enrol(t, patient.id, 'post-discharge', { phaseName: 'closed' });
    await enrol(t, patient.id, 'diabetes', { phaseName: 'coaching' });
    await enrol(t, patient.id, 'asthma');
    await t.api.delete(`${path}/asthma`);

    const read = await t.api.get(`${t.base}/patients/${patient.id}`);
    assert.equal(read.status, 200, read.text);
    const listed = read.body.patientPrograms;
    assert.deepEqual(
      listed.map((p: { programName: string; status: string }) => [p.programName, p.status]),
      [
        ['diabetes', 'IN_PROGRESS'],
        ['post-discharge', 'FINISHED'],
      ],
    );
    assert.deepEqual(Object.keys(listed[0]).sort(), programKeys);
    assert.deepEqual(listed[0], (await t.api.get(`${path}/current/diabetes`)).body);
    assert.deepEqual(listed[1], (await t.api.get(`${path}/history/${listed[1].id}`)).body);
    assert.deepEqual(listed, (await t.api.get(`${path}?assignedPrograms=true`)).body.data);
  });

  test('the patients list fills patientPrograms for every patient of the page', async () => {
    const t = await createTestTenant(app, programFormation());
    const ada = await createPatient(t, { firstName: 'Ada' });
    const bob = await createPatient(t, { firstName: 'Bob' });
    const cy = await createPatient(t, { firstName: 'Cy' });
    await enrol(t, ada.id, 'diabetes');
    await enrol(t, ada.id, 'asthma');
    await enrol(t, bob.id, 'post-discharge');
    const list = await t.api.get(`${t.base}/patients?sort=firstName,asc`);
    assert.equal(list.status, 200, list.text);
    const programsOf = Object.fromEntries(
      list.body.content.map((p: { id: string; patientPrograms: { programName: string; patientId: string }[] }) => [
        p.id,
        p.patientPrograms.map((program) => {
          assert.equal(program.patientId, p.id);
          return program.programName;
        }),
      ]),
    );
    assert.deepEqual(programsOf, { [ada.id]: ['asthma', 'diabetes'], [bob.id]: ['post-discharge'], [cy.id]: [] });
  });

  test('a patient read with its programs and sent back as a PATCH succeeds', async () => {
    const t = await createTestTenant(app, programFormation());
    const patient = await createPatient(t);
    await enrol(t, patient.id, 'diabetes');
    const read = (await t.api.get(`${t.base}/patients/${patient.id}`)).body;
    const patched = await t.api.patch(`${t.base}/patients/${patient.id}`, read);
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.patientPrograms, read.patientPrograms);
  });

  test('deleting the patient deletes its enrolments', async () => {
    const t = await createTestTenant(app, programFormation());
    const patient = await createPatient(t);
    await enrol(t, patient.id, 'diabetes');
    assert.equal((await t.api.delete(`${t.base}/patients/${patient.id}`)).status, 200);
    const rows = await app.services.db
      .selectFrom('patient_programs')
      .select('id')
      .where('tenant_id', '=', t.tenant.id)
      .where('patient_id', '=', patient.id)
      .execute();
    assert.deepEqual(rows, []);
  });
});

describe('GET /patients?programName=', () => {
  test('matches patients with a running enrolment in the program only', async () => {
    const t = await createTestTenant(app, programFormation());
    const running = await createPatient(t, { firstName: 'Running' });
    const finished = await createPatient(t, { firstName: 'Finished' });
    const unassigned = await createPatient(t, { firstName: 'Unassigned' });
    const other = await createPatient(t, { firstName: 'Other' });
    await enrol(t, running.id, 'diabetes', { phaseName: 'coaching' });
    await enrol(t, finished.id, 'diabetes', { phaseName: 'graduated' });
    await enrol(t, unassigned.id, 'diabetes');
    await t.api.delete(`${programsPath(t, unassigned.id)}/diabetes`);
    await enrol(t, other.id, 'asthma');
    const ids = async (query: string) =>
      (await t.api.get(`${t.base}/patients?${query}`)).body.content.map((p: { id: string }) => p.id);
    assert.deepEqual(await ids('programName=diabetes'), [running.id]);
    assert.deepEqual(await ids('programName=asthma'), [other.id]);
    assert.deepEqual(await ids('programName=post-discharge'), []);
    // Re-enrolled after finishing: running again.
    await enrol(t, finished.id, 'diabetes');
    assert.deepEqual(await ids('programName=diabetes&sort=firstName,asc'), [finished.id, running.id]);
  });
});

describe('audit', () => {
  test('every program write is in the audit log as a PATIENT_PROGRAM entry of the patient', async () => {
    const t = await createTestTenant(app, programFormation());
    const patient = await createPatient(t);
    const path = programsPath(t, patient.id);
    const enrolled = await enrol(t, patient.id, 'diabetes');
    await enrol(t, patient.id, 'diabetes', { status: 'NOT_STARTED' });
    await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'coaching' });
    await t.api.delete(`${path}/${enrolled.id}`);
    const response = await t.api.get(`${t.admin}/audit-data?entityType=PATIENT_PROGRAM`);
    assert.equal(response.status, 200, response.text);
    const events = response.body.data as { action: string; entityId: string; patientId: string; instanceName: string }[];
    assert.deepEqual(
      events.map((e) => e.action),
      ['PROGRAM_UNASSIGNED', 'PROGRAM_PHASE_CHANGED', 'PROGRAM_UPDATED', 'PROGRAM_ENROLLED'],
    );
    assert.ok(events.every((e) => e.entityId === enrolled.id && e.patientId === patient.id && e.instanceName === 'sandbox'));
    const byPatient = await t.api.get(`${t.admin}/audit-data?patientId=${patient.id}&action=PROGRAM_ENROLLED`);
    assert.equal(byPatient.body.data.length, 1);
  });
});
