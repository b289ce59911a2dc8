import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestTenant,
  errorDetails,
  isoMillis,
  type Response,
  startApp,
  uuidShape,
} from '../../test/harness.ts';
import { enrol, phaseKeys, programFormation, programKeys, programs, programsPath, publish } from '../../test/programs.ts';

/** The patient program routes: /patients/{patientId}/programs (001, DECISIONS §7–8, PROD-SHAPES). */

const app = await startApp();

async function setup() {
  const t = await createTestTenant(app, programFormation());
  const patient = await createPatient(t);
  return { t, patient, path: programsPath(t, patient.id) };
}

const names = (response: Response<any>) => response.body.data.map((p: { programName: string }) => p.programName);

describe('GET /programs', () => {
  test('lists every program of the formation as an unassigned placeholder, by programName, as data and meta', async () => {
    const { t, path } = await setup();
    const list = await t.api.get(path);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(names(list), ['asthma', 'diabetes', 'post-discharge']);
    assert.deepEqual(list.body.metaInfo, {
      page: 0,
      pageSize: 20,
      totalElements: 3,
      numberOfElements: 3,
      totalPages: 1,
      firstPage: true,
      lastPage: true,
    });
    const diabetes = list.body.data[1];
    assert.deepEqual(Object.keys(diabetes).sort(), programKeys);
    // PROD-SHAPES: the unassigned placeholder.
    assert.deepEqual(diabetes, {
      id: null,
      createdByName: null,
      createdAt: null,
      updatedByName: null,
      updatedAt: null,
      programName: 'diabetes',
      programTitle: 'Diabetes management',
      programDescription: 'Twelve weeks of coaching',
      assigned: false,
      patientId: null,
      currentPhase: null,
      status: null,
      compatibleWithCurrentVersion: false,
      pathHistory: [],
    });
    assert.equal(list.body.data[2].programDescription, null);
  });

  test('shows the enrolment where there is one; assignedPrograms filters in any case', async () => {
    const { t, patient, path } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    const all = await t.api.get(path);
    assert.deepEqual(all.body.data[1], enrolled);
    for (const value of ['true', 'TRUE', 'True']) {
      const assigned = await t.api.get(`${path}?assignedPrograms=${value}`);
      assert.equal(assigned.status, 200, assigned.text);
      assert.deepEqual(names(assigned), ['diabetes']);
      assert.equal(assigned.body.metaInfo.totalElements, 1);
    }
    const unassigned = await t.api.get(`${path}?assignedPrograms=false`);
    assert.deepEqual(names(unassigned), ['asthma', 'post-discharge']);
    assert.ok(unassigned.body.data.every((p: { assigned: boolean }) => p.assigned === false));
    // `assigned` is read as an alias.
    assert.deepEqual(names(await t.api.get(`${path}?assigned=true`)), ['diabetes']);
  });

  test('pages and sorts by programName; unknown query parameters are ignored', async () => {
    const { t, path } = await setup();
    const second = await t.api.get(`${path}?page=1&size=2&foo=bar`);
    assert.equal(second.status, 200, second.text);
    assert.deepEqual(names(second), ['post-discharge']);
    assert.deepEqual(second.body.metaInfo, {
      page: 1,
      pageSize: 2,
      totalElements: 3,
      numberOfElements: 1,
      totalPages: 2,
      firstPage: false,
      lastPage: true,
    });
    assert.deepEqual(names(await t.api.get(`${path}?sort=programName,desc`)), ['post-discharge', 'diabetes', 'asthma']);
    assert.deepEqual(names(await t.api.get(`${path}?sort=programName,asc`)), ['asthma', 'diabetes', 'post-discharge']);
    assert.deepEqual(names(await t.api.get(`${path}?page=5`)), []);
  });

  test('a finished enrolment is shown until the patient is enrolled again', async () => {
    const { t, patient, path } = await setup();
    const first = await enrol(t, patient.id, 'diabetes', { phaseName: 'graduated' });
    assert.equal(first.status, 'FINISHED');
    let shown = (await t.api.get(path)).body.data[1];
    assert.equal(shown.id, first.id);
    assert.equal(shown.assigned, true);
    assert.equal(shown.status, 'FINISHED');
    const second = await enrol(t, patient.id, 'diabetes');
    assert.notEqual(second.id, first.id);
    shown = (await t.api.get(path)).body.data[1];
    assert.equal(shown.id, second.id);
    assert.equal(shown.status, 'IN_PROGRESS');
    assert.equal((await t.api.get(path)).body.metaInfo.totalElements, 3);
  });

  test('enrolments in programs or phases the formation no longer has are listed, not compatible', async () => {
    const { t, patient, path } = await setup();
    const asthma = await enrol(t, patient.id, 'asthma');
    const diabetes = await enrol(t, patient.id, 'diabetes', { phaseName: 'maintenance' });
    const next = programFormation({
      programs: [
        {
          ...programs[0]!,
          title: 'Diabetes (new title)',
          phases: programs[0]!.phases.filter((phase) => phase.name !== 'maintenance'),
        },
        programs[1]!,
      ],
    });
    await publish(t, next);
    const list = await t.api.get(path);
    assert.deepEqual(names(list), ['asthma', 'diabetes', 'post-discharge']);
    const [oldAsthma, oldDiabetes] = list.body.data;
    assert.equal(oldAsthma.id, asthma.id);
    assert.equal(oldAsthma.compatibleWithCurrentVersion, false);
    assert.equal(oldAsthma.programTitle, null);
    // The phase stays as stored, marked deleted; titles that still exist come from the new formation.
    assert.equal(oldDiabetes.id, diabetes.id);
    assert.equal(oldDiabetes.programTitle, 'Diabetes (new title)');
    assert.equal(oldDiabetes.compatibleWithCurrentVersion, false);
    assert.equal(oldDiabetes.currentPhase.name, 'maintenance');
    assert.equal(oldDiabetes.currentPhase.title, 'Maintenance');
    assert.equal(oldDiabetes.currentPhase.deleted, true);
    assert.equal(oldDiabetes.currentPhase.currentVersion, '1');
    // Moving on to a phase that exists makes the enrolment compatible again, under version 2.
    const moved = await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'graduated' });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.compatibleWithCurrentVersion, true);
    assert.equal(moved.body.currentPhase.currentVersion, '2');
    assert.deepEqual(
      moved.body.pathHistory.map((p: { name: string; deleted: boolean }) => [p.name, p.deleted]),
      [
        ['maintenance', true],
        ['graduated', false],
      ],
    );
    // A program gone from the formation cannot be changed, but can be unassigned.
    assertCode(await t.api.patch(`${path}/asthma`, { status: 'FINISHED' }), 404, 'PROGRAM_NOT_FOUND');
    assert.equal((await t.api.delete(`${path}/asthma`)).status, 200);
    assert.deepEqual(names(await t.api.get(path)), ['diabetes', 'post-discharge']);
  });

  test('400 for bad query values or patient id, 401 without a token, 403 without PROGRAM_READ, 404 for a missing patient', async () => {
    const { t, path } = await setup();
    assertValidation(await t.api.get(`${path}?assignedPrograms=maybe`), 'querystring.assignedPrograms');
    assertValidation(await t.api.get(`${path}?size=0`), 'querystring.size');
    assertValidation(await t.api.get(`${path}?page=-1`), 'querystring.page');
    assertCode(await t.api.get(`${path}?sort=status,asc`), 400, 'INVALID_SORT');
    assertValidation(await t.api.get(`${t.base}/patients/not-a-uuid/programs`), 'params.patientId');
    assertCode(await t.anonymous.get(path), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['PATIENT_READ', 'PROGRAM_UPDATE'])).get(path), 403, 'ACCESS_DENIED');
    const reader = await t.apiWith(['PROGRAM_READ']);
    assert.equal((await reader.get(path)).status, 200);
    assertCode(await t.api.get(programsPath(t, randomUUID())), 404, 'PATIENT_NOT_FOUND');
  });
});

describe('GET /programs/current/{programName}', () => {
  test('answers the running enrolment; assigned, page, size and sort are ignored', async () => {
    const { t, patient, path } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    const current = await t.api.get(`${path}/current/diabetes?assigned=true&page=0&size=5&sort=whatever,up`);
    assert.equal(current.status, 200, current.text);
    assert.deepEqual(current.body, enrolled);
    assert.deepEqual(Object.keys(current.body).sort(), programKeys);
    assert.deepEqual(Object.keys(current.body.currentPhase).sort(), phaseKeys);
  });

  test('404 PATIENT_PROGRAM_NOT_FOUND with production details when not enrolled or finished', async () => {
    const { t, patient, path } = await setup();
    const never = await t.api.get(`${path}/current/diabetes`);
    assertCode(never, 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.equal(never.body[0].componentType, 'PATIENT_PROGRAM');
    assert.deepEqual(errorDetails(never), { programName: 'diabetes', patientId: patient.id, notStatus: 'FINISHED' });
    await enrol(t, patient.id, 'diabetes', { status: 'FINISHED' });
    assertCode(await t.api.get(`${path}/current/diabetes`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assertCode(await t.api.get(`${path}/current/no-such-program`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
  });

  test('400 for a bad patient id, 401 without a token, 403 without PROGRAM_READ, 404 for a missing patient', async () => {
    const { t, patient, path } = await setup();
    await enrol(t, patient.id, 'diabetes');
    assertValidation(await t.api.get(`${t.base}/patients/42/programs/current/diabetes`), 'params.patientId');
    assertCode(await t.anonymous.get(`${path}/current/diabetes`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const nothing = await t.clientWithRole('nothing');
    assertCode(await new Api(app.server, nothing.token).get(`${path}/current/diabetes`), 403, 'ACCESS_DENIED');
    assertCode(await t.api.get(`${programsPath(t, randomUUID())}/current/diabetes`), 404, 'PATIENT_NOT_FOUND');
  });
});

describe('GET /programs/history/{enrollmentId}', () => {
  test('answers an enrolment by id, running or finished', async () => {
    const { t, patient, path } = await setup();
    const first = await enrol(t, patient.id, 'diabetes');
    assert.deepEqual((await t.api.get(`${path}/history/${first.id}?page=0&assigned=false`)).body, first);
    const finished = await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'graduated' });
    const second = await enrol(t, patient.id, 'diabetes');
    const old = await t.api.get(`${path}/history/${first.id}`);
    assert.equal(old.status, 200, old.text);
    assert.deepEqual(old.body, finished.body);
    assert.equal(old.body.status, 'FINISHED');
    assert.deepEqual((await t.api.get(`${path}/history/${second.id}`)).body, second);
  });

  test('404 with {id, patientId}; 400 for a non-uuid id; 401; 403 without PROGRAM_READ', async () => {
    const { t, patient, path } = await setup();
    const id = randomUUID();
    const missing = await t.api.get(`${path}/history/${id}`);
    assertCode(missing, 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.deepEqual(errorDetails(missing), { id, patientId: patient.id });
    assertValidation(await t.api.get(`${path}/history/diabetes`), 'params.enrollmentId');
    const enrolled = await enrol(t, patient.id, 'diabetes');
    assertCode(await t.anonymous.get(`${path}/history/${enrolled.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['PATIENT_READ'])).get(`${path}/history/${enrolled.id}`), 403, 'ACCESS_DENIED');
    // Another patient's enrolment is not this patient's.
    const other = await createPatient(t, { firstName: 'Other' });
    assertCode(await t.api.get(`${programsPath(t, other.id)}/history/${enrolled.id}`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assertCode(await t.api.get(`${programsPath(t, randomUUID())}/history/${enrolled.id}`), 404, 'PATIENT_NOT_FOUND');
  });
});

describe('PATCH /programs/{programName}', () => {
  test('enrols at the START phase with status IN_PROGRESS, recording who and when', async () => {
    const { t, patient, path } = await setup();
    const response = await t.api.patch(`${path}/diabetes`, {});
    assert.equal(response.status, 200, response.text);
    const program = response.body;
    const by = `API_CLIENT:${t.adminClient.name}`;
    assert.deepEqual(Object.keys(program).sort(), programKeys);
    assert.match(program.id, uuidShape);
    assert.match(program.createdAt, isoMillis);
    assert.equal(program.updatedAt, program.createdAt);
    assert.equal(program.createdByName, by);
    assert.equal(program.updatedByName, by);
    assert.equal(program.programName, 'diabetes');
    assert.equal(program.programTitle, 'Diabetes management');
    assert.equal(program.programDescription, 'Twelve weeks of coaching');
    assert.equal(program.assigned, true);
    assert.equal(program.patientId, patient.id);
    assert.equal(program.status, 'IN_PROGRESS');
    assert.equal(program.compatibleWithCurrentVersion, true);
    assert.deepEqual(program.currentPhase, {
      timestamp: program.createdAt,
      createdBy: t.adminClient.id,
      createdByName: by,
      name: 'enrolled',
      title: 'Enrolled',
      description: 'Consent and baseline',
      currentVersion: '1',
      deleted: false,
    });
    assert.deepEqual(program.pathHistory, [program.currentPhase]);
    const audit = await auditOf(t, { patientId: patient.id, entityType: 'PATIENT_PROGRAM' });
    assert.deepEqual(
      audit.map((e) => [e.action, e.entityId, e.patientId]),
      [['PROGRAM_ENROLLED', program.id, patient.id]],
    );
  });

  test('enrols at a given phase and status; at a FINISH phase the program is FINISHED', async () => {
    const { t, patient, path } = await setup();
    const coaching = await enrol(t, patient.id, 'diabetes', { phaseName: 'coaching', status: 'NOT_STARTED', assigned: true });
    assert.equal(coaching.currentPhase.name, 'coaching');
    assert.equal(coaching.status, 'NOT_STARTED');
    const closed = await enrol(t, patient.id, 'post-discharge', { phaseName: 'closed' });
    assert.equal(closed.status, 'FINISHED');
    assert.equal(closed.currentPhase.title, 'Closed');
    assert.equal(closed.currentPhase.description, null);
    // Finished at once: no running enrolment, but it stays as history.
    assertCode(await t.api.get(`${path}/current/post-discharge`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.equal((await t.api.get(`${path}/history/${closed.id}`)).status, 200);
  });

  test('when enrolled: a new phase is appended to pathHistory, status is set, the same phase adds nothing', async () => {
    const { t, patient } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    const coaching = await enrol(t, patient.id, 'diabetes', { phaseName: 'coaching' });
    assert.equal(coaching.id, enrolled.id);
    assert.equal(coaching.createdAt, enrolled.createdAt);
    assert.deepEqual(
      coaching.pathHistory.map((p: { name: string }) => p.name),
      ['enrolled', 'coaching'],
    );
    assert.deepEqual(coaching.currentPhase, coaching.pathHistory.at(-1));
    assert.equal(coaching.status, 'IN_PROGRESS');
    const paused = await enrol(t, patient.id, 'diabetes', { phaseName: 'coaching', status: 'NOT_STARTED' });
    assert.equal(paused.pathHistory.length, 2);
    assert.equal(paused.status, 'NOT_STARTED');
    const same = await enrol(t, patient.id, 'diabetes', { assigned: true });
    assert.deepEqual(same, paused);
    const maintenance = await enrol(t, patient.id, 'diabetes', { phaseName: 'maintenance', status: 'IN_PROGRESS' });
    assert.equal(maintenance.pathHistory.length, 3);
    assert.equal(maintenance.status, 'IN_PROGRESS');
    const audit = await auditOf(t, { patientId: patient.id, entityType: 'PATIENT_PROGRAM' });
    assert.deepEqual(audit.map((e) => e.action).reverse(), [
      'PROGRAM_ENROLLED',
      'PROGRAM_PHASE_CHANGED',
      'PROGRAM_UPDATED',
      'PROGRAM_PHASE_CHANGED',
    ]);
    assert.deepEqual(audit[1]!.changedFields, ['status']);
    assert.deepEqual(audit[0]!.changedFields, ['currentPhase', 'pathHistory', 'status']);
  });

  test('entering a FINISH phase finishes the program even when another status is asked; status FINISHED finishes it too', async () => {
    const { t, patient, path } = await setup();
    await enrol(t, patient.id, 'diabetes');
    const graduated = await enrol(t, patient.id, 'diabetes', { phaseName: 'graduated', status: 'IN_PROGRESS' });
    assert.equal(graduated.status, 'FINISHED');
    assert.equal(graduated.currentPhase.name, 'graduated');
    await enrol(t, patient.id, 'post-discharge');
    const finished = await enrol(t, patient.id, 'post-discharge', { status: 'FINISHED' });
    assert.equal(finished.status, 'FINISHED');
    assert.equal(finished.currentPhase.name, 'discharged');
    assert.deepEqual(names(await t.api.get(`${path}?assignedPrograms=true`)), ['diabetes', 'post-discharge']);
  });

  test('re-enrolment after finishing starts a new enrolment; the finished one stays as history', async () => {
    const { t, patient, path } = await setup();
    const first = await enrol(t, patient.id, 'diabetes', { phaseName: 'graduated' });
    const second = await enrol(t, patient.id, 'diabetes', { phaseName: 'coaching' });
    assert.notEqual(second.id, first.id);
    assert.equal(second.status, 'IN_PROGRESS');
    assert.deepEqual(
      second.pathHistory.map((p: { name: string }) => p.name),
      ['coaching'],
    );
    assert.equal((await t.api.get(`${path}/history/${first.id}`)).body.status, 'FINISHED');
    assert.equal((await t.api.get(`${path}/current/diabetes`)).body.id, second.id);
  });

  test('assigned:false unassigns and answers the placeholder; history answers 404 after', async () => {
    const { t, patient, path } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    const response = await t.api.patch(`${path}/diabetes`, { assigned: false, status: 'IN_PROGRESS' });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.id, null);
    assert.equal(response.body.assigned, false);
    assert.equal(response.body.programTitle, 'Diabetes management');
    assert.equal(response.body.currentPhase, null);
    assert.deepEqual(response.body.pathHistory, []);
    assertCode(await t.api.get(`${path}/history/${enrolled.id}`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assertCode(await t.api.get(`${path}/current/diabetes`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    // Not enrolled: nothing to unassign, the same answer, nothing audited.
    assert.deepEqual((await t.api.patch(`${path}/diabetes`, { assigned: false })).body, response.body);
    assert.deepEqual(
      (await auditOf(t, { patientId: patient.id, entityType: 'PATIENT_PROGRAM' })).map((e) => e.action),
      ['PROGRAM_UNASSIGNED', 'PROGRAM_ENROLLED'],
    );
  });

  test('a program read and sent back is accepted: read-only and unknown keys are ignored', async () => {
    const { t, patient } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    const again = await enrol(t, patient.id, 'diabetes', { ...enrolled, extra: { anything: 1 } });
    assert.deepEqual(again, enrolled);
    // A placeholder sent back (status null) enrols.
    const placeholder = (await t.api.get(`${programsPath(t, patient.id)}?assignedPrograms=false`)).body.data[0];
    const asthma = await enrol(t, patient.id, 'asthma', { ...placeholder, assigned: true });
    assert.equal(asthma.status, 'IN_PROGRESS');
  });

  test('400 for a phase not in the program or a bad value, and nothing is stored', async () => {
    const { t, patient, path } = await setup();
    const bad = await t.api.patch(`${path}/diabetes`, { phaseName: 'discharged' });
    assertValidation(bad, 'body.phaseName');
    assertValidation(await t.api.patch(`${path}/diabetes`, { status: 'DONE' }), 'body.status');
    assertValidation(await t.api.patch(`${path}/diabetes`, { status: 'in_progress' }), 'body.status');
    assertValidation(await t.api.patch(`${path}/diabetes`, { assigned: 'true' }), 'body.assigned');
    assertValidation(await t.api.patch(`${path}/diabetes`, { phaseName: 5 }), 'body.phaseName');
    assertValidation(await t.api.patch(`${path}/diabetes`, { phaseName: '' }), 'body.phaseName');
    assertCode(
      await t.api.request('PATCH', `${path}/diabetes`, '{"status":', { 'content-type': 'application/json' }),
      400,
      'MALFORMED_JSON',
    );
    assertValidation(await t.api.patch(`${t.base}/patients/nope/programs/diabetes`, {}), 'params.patientId');
    assert.deepEqual(names(await t.api.get(`${path}?assignedPrograms=true`)), []);
    // Enrolled: a bad phase leaves the enrolment as it was.
    const enrolled = await enrol(t, patient.id, 'diabetes');
    assertValidation(await t.api.patch(`${path}/diabetes`, { phaseName: 'nowhere', status: 'FINISHED' }), 'body.phaseName');
    assert.deepEqual((await t.api.get(`${path}/current/diabetes`)).body, enrolled);
  });

  test('404 PROGRAM_NOT_FOUND or PATIENT_NOT_FOUND, 401 without a token, 403 without PROGRAM_UPDATE', async () => {
    const { t, patient, path } = await setup();
    const unknown = await t.api.patch(`${path}/no-such-program`, {});
    assertCode(unknown, 404, 'PROGRAM_NOT_FOUND');
    assert.deepEqual(errorDetails(unknown), { programName: 'no-such-program' });
    assertCode(await t.api.patch(`${programsPath(t, randomUUID())}/diabetes`, {}), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.anonymous.patch(`${path}/diabetes`, {}), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['PROGRAM_READ', 'PATIENT_UPDATE'])).patch(`${path}/diabetes`, {}), 403, 'ACCESS_DENIED');
    assert.deepEqual(names(await t.api.get(`${path}?assignedPrograms=true`)), []);
    assert.deepEqual(await auditOf(t, { patientId: patient.id, entityType: 'PATIENT_PROGRAM' }), []);
  });
});

describe('PATCH /programs/{programName}/phases', () => {
  test('moves the running enrolment, growing pathHistory; a FINISH phase finishes it', async () => {
    const { t, patient, path } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    const coaching = await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'coaching', status: 'NOT_STARTED' });
    assert.equal(coaching.status, 200, coaching.text);
    assert.equal(coaching.body.id, enrolled.id);
    assert.equal(coaching.body.status, 'IN_PROGRESS');
    assert.equal(coaching.body.currentPhase.name, 'coaching');
    assert.equal(coaching.body.currentPhase.title, 'Coaching');
    assert.match(coaching.body.currentPhase.timestamp, isoMillis);
    assert.equal(coaching.body.updatedAt, coaching.body.currentPhase.timestamp);
    assert.deepEqual(coaching.body.pathHistory.slice(0, 1), enrolled.pathHistory);
    // Naming the current phase changes nothing.
    assert.deepEqual((await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'coaching' })).body, coaching.body);
    // Back to an earlier phase is a move too.
    const back = await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'enrolled' });
    assert.deepEqual(
      back.body.pathHistory.map((p: { name: string }) => p.name),
      ['enrolled', 'coaching', 'enrolled'],
    );
    const done = await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'graduated' });
    assert.equal(done.body.status, 'FINISHED');
    assert.equal(done.body.pathHistory.length, 4);
    assert.deepEqual(done.body.currentPhase, done.body.pathHistory[3]);
    assertCode(await t.api.get(`${path}/current/diabetes`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.deepEqual((await t.api.get(`${path}/history/${enrolled.id}`)).body, done.body);
    // Finished: no running enrolment to move.
    assertCode(await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'coaching' }), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    const audit = await auditOf(t, { patientId: patient.id, entityType: 'PATIENT_PROGRAM' });
    assert.deepEqual(audit.map((e) => e.action).reverse(), [
      'PROGRAM_ENROLLED',
      'PROGRAM_PHASE_CHANGED',
      'PROGRAM_PHASE_CHANGED',
      'PROGRAM_PHASE_CHANGED',
    ]);
  });

  test('400 for a missing, mistyped or unknown phase; nothing changes', async () => {
    const { t, patient, path } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    assertValidation(await t.api.patch(`${path}/diabetes/phases`, {}), 'body.phaseName');
    assertValidation(await t.api.patch(`${path}/diabetes/phases`, { phaseName: 3 }), 'body.phaseName');
    assertValidation(await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'closed' }), 'body.phaseName');
    assertValidation(
      await t.api.patch(`${t.base}/patients/x/programs/diabetes/phases`, { phaseName: 'coaching' }),
      'params.patientId',
    );
    assert.deepEqual((await t.api.get(`${path}/current/diabetes`)).body, enrolled);
  });

  test('404 when not enrolled or no patient, 401 without a token, 403 without PROGRAM_UPDATE', async () => {
    const { t, patient, path } = await setup();
    const missing = await t.api.patch(`${path}/diabetes/phases`, { phaseName: 'coaching' });
    assertCode(missing, 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.deepEqual(errorDetails(missing), { programName: 'diabetes', patientId: patient.id, notStatus: 'FINISHED' });
    assertCode(await t.api.patch(`${path}/no-such/phases`, { phaseName: 'x' }), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assertCode(
      await t.api.patch(`${programsPath(t, randomUUID())}/diabetes/phases`, { phaseName: 'coaching' }),
      404,
      'PATIENT_NOT_FOUND',
    );
    await enrol(t, patient.id, 'diabetes');
    assertCode(await t.anonymous.patch(`${path}/diabetes/phases`, { phaseName: 'coaching' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['PROGRAM_READ']);
    assertCode(await reader.patch(`${path}/diabetes/phases`, { phaseName: 'coaching' }), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${path}/current/diabetes`)).body.currentPhase.name, 'enrolled');
  });
});

describe('DELETE /programs/{programNameOrEnrollmentId}', () => {
  test('by program name: 200 with an empty body; the enrolment is gone', async () => {
    const { t, patient, path } = await setup();
    const enrolled = await enrol(t, patient.id, 'diabetes');
    const response = await t.api.delete(`${path}/diabetes`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.text, '');
    assertCode(await t.api.get(`${path}/history/${enrolled.id}`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.equal((await t.api.get(path)).body.data[1].assigned, false);
    const audit = await auditOf(t, { patientId: patient.id, entityType: 'PATIENT_PROGRAM' });
    assert.deepEqual(
      audit.map((e) => [e.action, e.entityType, e.entityId]),
      [
        ['PROGRAM_UNASSIGNED', 'PATIENT_PROGRAM', enrolled.id],
        ['PROGRAM_ENROLLED', 'PATIENT_PROGRAM', enrolled.id],
      ],
    );
    // The name deletes only the running enrolment; a finished one is reached by id.
    const finished = await enrol(t, patient.id, 'diabetes', { phaseName: 'graduated' });
    assertCode(await t.api.delete(`${path}/diabetes`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.equal((await t.api.get(`${path}/history/${finished.id}`)).status, 200);
  });

  test('by enrolment id: a finished or a running one', async () => {
    const { t, patient, path } = await setup();
    const finished = await enrol(t, patient.id, 'diabetes', { status: 'FINISHED' });
    const running = await enrol(t, patient.id, 'diabetes');
    const first = await t.api.delete(`${path}/${finished.id}`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.text, '');
    assertCode(await t.api.get(`${path}/history/${finished.id}`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.equal((await t.api.get(`${path}/current/diabetes`)).body.id, running.id);
    assert.equal((await t.api.delete(`${path}/${running.id.toUpperCase()}`)).status, 200);
    assertCode(await t.api.get(`${path}/current/diabetes`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.deepEqual(names(await t.api.get(`${path}?assignedPrograms=true`)), []);
  });

  test('404 with details for a missing enrolment or patient, 400 for a bad patient id, 401, 403 without PROGRAM_UPDATE', async () => {
    const { t, patient, path } = await setup();
    const byName = await t.api.delete(`${path}/diabetes`);
    assertCode(byName, 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.deepEqual(errorDetails(byName), { programName: 'diabetes', patientId: patient.id, notStatus: 'FINISHED' });
    const id = randomUUID();
    const byId = await t.api.delete(`${path}/${id}`);
    assertCode(byId, 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.deepEqual(errorDetails(byId), { id, patientId: patient.id });
    assertCode(await t.api.delete(`${programsPath(t, randomUUID())}/diabetes`), 404, 'PATIENT_NOT_FOUND');
    assertValidation(await t.api.delete(`${t.base}/patients/abc/programs/diabetes`), 'params.patientId');
    const enrolled = await enrol(t, patient.id, 'diabetes');
    assertCode(await t.anonymous.delete(`${path}/diabetes`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await (await t.apiWith(['PROGRAM_READ'])).delete(`${path}/${enrolled.id}`), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(`${path}/current/diabetes`)).body, enrolled);
  });
});

describe('tenant isolation', () => {
  test("tenant A's token is 403 on every program route of tenant B, and B's data is unchanged", async () => {
    const a = await setup();
    const b = await setup();
    const enrolled = await enrol(b.t, b.patient.id, 'diabetes');
    const attempts: [string, () => Promise<Response>][] = [
      ['list', () => a.t.api.get(b.path)],
      ['current', () => a.t.api.get(`${b.path}/current/diabetes`)],
      ['history', () => a.t.api.get(`${b.path}/history/${enrolled.id}`)],
      ['patch', () => a.t.api.patch(`${b.path}/diabetes`, { status: 'FINISHED' })],
      ['phases', () => a.t.api.patch(`${b.path}/diabetes/phases`, { phaseName: 'coaching' })],
      ['delete by name', () => a.t.api.delete(`${b.path}/diabetes`)],
      ['delete by id', () => a.t.api.delete(`${b.path}/${enrolled.id}`)],
    ];
    for (const [label, attempt] of attempts) assertCode(await attempt(), 403, 'TENANT_ACCESS_DENIED', label);
    assert.deepEqual((await b.t.api.get(`${b.path}/current/diabetes`)).body, enrolled);
    assert.deepEqual(
      await auditOf(b.t, { patientId: b.patient.id, entityType: 'PATIENT_PROGRAM' }).then((events) =>
        events.map((e) => e.action),
      ),
      ['PROGRAM_ENROLLED'],
    );
  });

  test("tenant B's patients and enrolments do not exist on tenant A's paths", async () => {
    const a = await setup();
    const b = await setup();
    const theirs = await enrol(b.t, b.patient.id, 'diabetes');
    const foreign = programsPath(a.t, b.patient.id);
    assertCode(await a.t.api.get(foreign), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.t.api.get(`${foreign}/current/diabetes`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.t.api.get(`${foreign}/history/${theirs.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.t.api.patch(`${foreign}/diabetes`, {}), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.t.api.patch(`${foreign}/diabetes/phases`, { phaseName: 'coaching' }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.t.api.delete(`${foreign}/${theirs.id}`), 404, 'PATIENT_NOT_FOUND');
    // B's enrolment id under A's own patient is no enrolment either.
    assertCode(await a.t.api.get(`${a.path}/history/${theirs.id}`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assertCode(await a.t.api.delete(`${a.path}/${theirs.id}`), 404, 'PATIENT_PROGRAM_NOT_FOUND');
    assert.deepEqual((await b.t.api.get(`${b.path}/history/${theirs.id}`)).body, theirs);
  });
});
