import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { multipart, sampleFile } from '../../test/files.ts';
import {
  assertCode,
  createPatient,
  createTestTenant,
  startApp,
  type TestTenant,
  testFormation,
  uuidShape,
} from '../../test/harness.ts';
import { captureStatements, stopCapture } from '../../test/statements.ts';

const app = await startApp();

/** The tenant's access log, newest first. */
async function accessLog(t: TestTenant, query = '') {
  const response = await t.api.get(`${t.admin}/access-log?size=100${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data as Record<string, any>[];
}

/** The records of reads only, newest first: the writes that made a test's records are recorded too (their answers show them). */
async function readsOf(t: TestTenant, query = '') {
  return (await accessLog(t, query)).filter((record) => String(record.operation).startsWith('GET '));
}

describe('the access log: what is written', () => {
  test('a read by id writes who, when, from where, what and the outcome; no field values', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const read = await t.api.get(`${t.base}/patients/${patient.id}`);
    assert.equal(read.status, 200);
    const [record, ...rest] = await accessLog(t);
    assert.deepEqual(
      rest.map((created) => created.operation),
      ['POST /:tenantName/:instanceName/patients'],
      'the create answered the patient: recorded too',
    );
    assert.equal(record!.operation, 'GET /:tenantName/:instanceName/patients/:patientId');
    assert.equal(record!.resourceType, 'PATIENT');
    assert.deepEqual(record!.patientIds, [patient.id]);
    assert.equal(record!.outcome, 200);
    assert.equal(record!.actorType, 'API_CLIENT');
    assert.equal(record!.actorId, t.adminClient.id);
    assert.equal(record!.requestId, read.headers['x-request-id']);
    assert.equal(record!.clientAddress, '127.0.0.1');
    assert.equal(record!.instanceId, t.instance.id);
    assert.ok(!JSON.stringify(record).includes('Quill'));
  });

  test('a read by MRN names the patient by id, never by the MRN', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', mrn: 'MRN-ACCESS-1' });
    assert.equal((await t.api.get(`${t.base}/patients/MRN-ACCESS-1?type=MRN`)).status, 200);
    const [record] = await accessLog(t);
    assert.deepEqual(record!.patientIds, [patient.id]);
    assert.ok(!JSON.stringify(record).includes('MRN-ACCESS-1'));
  });

  test('a list page is one record naming every patient on it', async () => {
    const t = await createTestTenant(app);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createPatient(t, { firstName: 'Ada', lastName: `List${i}` })).id);
    const page = await t.api.get(`${t.base}/patients?size=2&sort=lastName,asc`);
    assert.equal(page.status, 200);
    const records = await readsOf(t);
    assert.equal(records.length, 1);
    assert.deepEqual([...records[0]!.patientIds].sort(), ids.slice(0, 2).sort());
    assert.equal(records[0]!.recordIds, null);
    // A page with no patient disclosed nothing, and is not written.
    assert.equal((await t.api.get(`${t.base}/patients?search=nobody-has-this-name`)).status, 200);
    assert.equal((await readsOf(t)).length, 1);
  });

  test('refusals on a patient are attempts: 403 without the permission, 404 for an id not there', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const outsider = await t.apiWith(['TASK_READ']);
    assertCode(await outsider.get(`${t.base}/patients/${patient.id}`), 403, 'ACCESS_DENIED');
    const missing = randomUUID();
    assert.equal((await t.api.get(`${t.base}/patients/${missing}`)).status, 404);
    const [notFound, denied] = await accessLog(t);
    assert.deepEqual([notFound!.outcome, notFound!.patientIds], [404, [missing]]);
    assert.deepEqual([denied!.outcome, denied!.patientIds], [403, [patient.id]]);
    assert.notEqual(denied!.actorId, t.adminClient.id);
  });

  test('answers at once, written together (group commit), each have their own record and leave nothing in flight', async () => {
    const t = await createTestTenant(app);
    const patients: Awaited<ReturnType<typeof createPatient>>[] = [];
    for (let i = 0; i < 5; i++) patients.push(await createPatient(t, { firstName: 'Ada', lastName: `Burst${i}` }));
    const outsider = await t.apiWith(['TASK_READ']);
    const reads = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        i % 10 === 9
          ? outsider.get(`${t.base}/patients/${patients[i % 5]!.id}`)
          : t.api.get(`${t.base}/patients/${i % 10 === 8 ? randomUUID() : patients[i % 5]!.id}`),
      ),
    );
    assert.deepEqual(
      reads.map((read) => read.status),
      Array.from({ length: 30 }, (_, i) => (i % 10 === 9 ? 403 : i % 10 === 8 ? 404 : 200)),
    );
    const records = await readsOf(t);
    assert.deepEqual(records.map((record) => record.requestId).sort(), reads.map((read) => read.headers['x-request-id']).sort());
    assert.equal(app.services.accessLog.inFlight, 0);
  });
});

describe('the access log: every way an answer goes out', () => {
  test('an idempotent replay is recorded from the answer it sends again, even when the patient went in between', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', mrn: 'MRN-REPLAY-1' });
    const headers = { 'idempotency-key': randomUUID() };
    const first = await t.api.request('POST', `${t.base}/by-filter/patients`, { mrn: 'MRN-REPLAY-1' }, headers);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.content[0].id, patient.id);
    assert.equal((await t.api.delete(`${t.base}/patients/${patient.id}`)).status, 200);
    const replay = await t.api.request('POST', `${t.base}/by-filter/patients`, { mrn: 'MRN-REPLAY-1' }, headers);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body.content[0].id, patient.id, 'the kept answer, with the patient, is sent again');
    const records = await accessLog(t);
    const replayed = records.find((record) => record.requestId === replay.headers['x-request-id']);
    assert.ok(replayed, 'the replay has its record');
    assert.deepEqual(
      [replayed.patientIds, replayed.operation],
      [[patient.id], 'POST /:tenantName/:instanceName/by-filter/patients'],
    );
  });

  test("a replay names what its first sending named: the patient its handler named, the matches behind a page's total", async () => {
    const phone = { id: randomUUID(), number: '+14155550100', default: true };
    const t = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', phone: '+14155550123', mrn: 'MRN-REPLAY-2' });
    const created = await t.api.post(`${t.base}/communications`, { channel: 'SMS', patientContactId: patient.id });
    assert.equal(created.status, 200, created.text);
    const sendKey = { 'idempotency-key': randomUUID() };
    const send = () =>
      t.api.request('POST', `${t.base}/${created.body.communicationId}/messages`, { message: 'See you' }, sendKey);
    const probeKey = { 'idempotency-key': randomUUID() };
    const probe = () => t.api.request('POST', `${t.base}/by-filter/patients?page=3`, { mrn: 'MRN-REPLAY-2' }, probeKey);
    assert.equal((await send()).status, 201);
    const first = await probe();
    assert.deepEqual([first.status, first.body.content.length, first.body.totalElements], [200, 0, 1]);
    assert.equal((await t.api.delete(`${t.base}/patients/${patient.id}`)).status, 200);
    // Replayed: the send's handler now stops before naming anyone (the patient is gone), and the
    // page's JSON holds no id; each record names the patient as the first sending did.
    const replays = [await send(), await probe()];
    const records = await accessLog(t);
    for (const replay of replays) {
      assert.equal(replay.headers['idempotent-replayed'], 'true', replay.text);
      const record = records.find((entry) => entry.requestId === replay.headers['x-request-id']);
      assert.deepEqual(record?.patientIds, [patient.id], `${record?.operation}`);
    }
  });

  test('a write answered with no body shows nothing: neither the write nor its answer is recorded', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', email: 'ada.quill@example.org' });
    const draft = await t.api.post(`${t.base}/patients/${patient.id}/email-drafts`, { subject: 'Hello', body: 'Dear Ada' });
    assert.equal(draft.status, 201, draft.text);
    const deleted = await t.api.delete(`${t.base}/patients/${patient.id}/email-drafts/${draft.body.id}`);
    assert.deepEqual([deleted.status, deleted.text], [200, '']);
    const records = await accessLog(t);
    assert.equal(records.filter((record) => record.requestId === deleted.headers['x-request-id']).length, 0);
  });

  test("an empty page's total discloses who matches: the record keeps the count and names the matching patients", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', phone: '+14155550123' });
    const probe = await t.api.get(`${t.base}/patients?phone=%2B14155550123&page=3`);
    assert.equal(probe.status, 200, probe.text);
    assert.deepEqual([probe.body.content.length, probe.body.totalElements], [0, 1]);
    const [record] = await accessLog(t);
    assert.deepEqual([record!.patientIds, record!.matched, record!.requestId], [[patient.id], 1, probe.headers['x-request-id']]);
    // No match, no disclosure: nothing written.
    assert.equal((await t.api.get(`${t.base}/patients?phone=%2B14155550199`)).status, 200);
    assert.equal((await readsOf(t)).length, 1);
  });

  test("FHIR's _summary=count discloses who matches a name and birth date: recorded with the count and the patients", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quillfeather', birthDate: '1980-02-03' });
    const count = await t.api.get(`${t.base}/fhir/R4/Patient?family=Quillfeather&birthdate=1980-02-03&_summary=count`);
    assert.equal(count.status, 200, count.text);
    assert.deepEqual([count.body.total, count.body.entry], [1, undefined]);
    const [record] = await readsOf(t);
    assert.deepEqual([record!.patientIds, record!.matched, record!.requestId], [[patient.id], 1, count.headers['x-request-id']]);
  });

  test('a write that answers with patient data is recorded: PATCH {} answers the whole patient', async () => {
    const t = await createTestTenant(app);
    const sent = captureStatements();
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    stopCapture(sent);
    // The create's record rides in the create's own statement (the unit of work), not one of its own.
    const texts = [...sent.keys()];
    assert.ok(texts.some((text) => /insert into "patients"/i.test(text) && /insert into "access_log"/i.test(text)));
    assert.equal(texts.filter((text) => /insert into "access_log"/i.test(text)).length, 1, texts.join('\n'));
    const created = await accessLog(t);
    assert.deepEqual(
      created.map((record) => [record.operation, record.patientIds]),
      [['POST /:tenantName/:instanceName/patients', [patient.id]]],
      'the create answered the patient',
    );
    const patched = await t.api.patch(`${t.base}/patients/${patient.id}`, {});
    assert.equal(patched.status, 200, patched.text);
    const [record] = await accessLog(t);
    assert.deepEqual(
      [record!.operation, record!.patientIds, record!.requestId],
      ['PATCH /:tenantName/:instanceName/patients/:patientId', [patient.id], patched.headers['x-request-id']],
    );
  });

  test('a patient read and a page of patients write their record in their own statement: one round trip each (not on Citus)', async () => {
    const folded = app.services.dbKind !== 'citus';
    const t = await createTestTenant(app);
    const ada = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', phone: '+14155550123' });
    const bo = await createPatient(t, { firstName: 'Bo', lastName: 'Quill' });
    const sent = captureStatements();
    const reads = [
      await t.api.get(`${t.base}/patients/${ada.id}`),
      await t.api.get(`${t.base}/patients?size=1&sort=lastName`),
      await t.api.get(`${t.base}/patients?search=quill&size=1`),
      await t.api.get(`${t.base}/patients?phone=%2B14155550123&page=2`),
      await t.api.post(`${t.base}/by-filter/patients`, { lastName: 'Quill' }),
    ];
    stopCapture(sent);
    for (const read of reads) assert.equal(read.status, 200, read.text);
    const texts = [...sent.keys()];
    // The access log's own statement (its group commit) is never sent: each read carried its record.
    // On Citus it is, and no read carries one (http/context.ts readRecording).
    assert.equal(
      texts.some((text) => /insert into "access_log"/i.test(text)),
      !folded,
      texts.join('\n'),
    );
    const patientReads = texts.filter((text) => /from patients/i.test(text));
    assert.ok(
      patientReads.length > 0 && patientReads.every((text) => /INSERT INTO access_log/.test(text) === folded),
      texts.join('\n'),
    );
    const records = await accessLog(t);
    const of = (read: (typeof reads)[number]) => {
      const record = records.find((entry) => entry.requestId === read.headers['x-request-id']);
      return [[...(record?.patientIds ?? [])].sort(), record?.matched ?? null];
    };
    const both = [ada.id, bo.id].sort();
    assert.deepEqual(of(reads[0]!), [[ada.id], null], 'a read by id names its patient');
    assert.deepEqual(of(reads[1]!), [[reads[1]!.body.content[0].id], 2], 'a page names its rows, and keeps its total');
    assert.deepEqual(of(reads[2]!), [both, 2], "a search's total names its matches");
    assert.deepEqual(of(reads[3]!), [[ada.id], 1], 'an empty page past the end names who its total stands for');
    assert.deepEqual(of(reads[4]!), [both, 2], 'a JSON filter too');
    assert.equal(records.filter((entry) => entry.requestId === reads[0]!.headers['x-request-id']).length, 1);
  });

  test("each record has Cairn's own request id; the caller's is kept apart, only when short and well-formed", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const read = (requestId: string) =>
      t.api.request('GET', `${t.base}/patients/${patient.id}`, undefined, { 'x-request-id': requestId });
    const traced = await read('trace-0af7651916cd43dd');
    const again = await read('trace-0af7651916cd43dd');
    const long = await read('x'.repeat(8000));
    const records = await accessLog(t);
    const byAnswer = (answer: { headers: Record<string, unknown> }) =>
      records.find((record) => record.requestId === answer.headers['x-request-id'])!;
    for (const answer of [traced, again, long]) assert.match(String(answer.headers['x-request-id']), uuidShape);
    assert.notEqual(traced.headers['x-request-id'], again.headers['x-request-id'], 'two requests, two ids');
    assert.equal(byAnswer(traced).callerRequestId, 'trace-0af7651916cd43dd');
    assert.equal(byAnswer(again).callerRequestId, 'trace-0af7651916cd43dd');
    assert.equal(byAnswer(long).callerRequestId, null, 'an id of 8,000 characters is not kept');
  });

  test("the sandbox's outbox shows patients' addresses and messages: recorded", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', email: 'ada.quill@example.org' });
    const draft = await t.api.post(`${t.base}/patients/${patient.id}/email-drafts`, { subject: 'Hello', body: 'Dear Ada' });
    assert.equal(draft.status, 201, draft.text);
    assert.equal((await t.api.post(`${t.base}/patients/${patient.id}/email-drafts/${draft.body.id}/send`, {})).status, 200);
    await app.jobs.drain();
    const outbox = await t.api.get(`${t.base}/sandbox/outbox`);
    assert.equal(outbox.status, 200, outbox.text);
    assert.equal(outbox.body.content[0].patientId, patient.id);
    const [record] = await accessLog(t);
    assert.deepEqual(
      [record!.operation, record!.resourceType, record!.patientIds],
      ['GET /:tenantName/:instanceName/sandbox/outbox', 'MESSAGE', [patient.id]],
    );
  });

  test('a record that cannot be written fails the answer with a 500 naming the request, never the database (FHIR: an OperationOutcome)', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    // This tenant's records only: other tests share the database.
    const check = `access_log_refuses_${t.tenant.id.replaceAll('-', '')}`;
    await sql`ALTER TABLE access_log ADD CONSTRAINT ${sql.id(check)} CHECK (tenant_id <> ${sql.lit(t.tenant.id)}::uuid) NOT VALID`.execute(
      app.services.db,
    );
    try {
      for (const url of [`${t.base}/patients/${patient.id}`, `${t.base}/patients/${randomUUID()}`]) {
        const read = await t.api.get(url);
        assert.equal(read.status, 500, read.text);
        assert.deepEqual(read.body[0].errorCode, 'INTERNAL_ERROR');
        assert.equal(read.body[0].message, 'Internal server error');
        assert.deepEqual(read.body[0].details, { requestId: read.headers['x-request-id'] });
        assert.ok(!/constraint|violat|access_log|Quill/i.test(read.text), read.text);
      }
      // Under the FHIR base the failure is an OperationOutcome, naming the request the same way.
      const fhirRead = await t.api.get(`${t.base}/fhir/R4/Patient/${patient.id}`);
      assert.equal(fhirRead.status, 500, fhirRead.text);
      assert.match(String(fhirRead.headers['content-type']), /^application\/fhir\+json/);
      assert.equal(fhirRead.body.resourceType, 'OperationOutcome');
      assert.deepEqual(fhirRead.body.issue[0].code, 'exception');
      assert.equal(fhirRead.body.issue[0].diagnostics, `Internal server error (request ${fhirRead.headers['x-request-id']})`);
      assert.ok(!/constraint|violat|access_log|Quill/i.test(fhirRead.text), fhirRead.text);
    } finally {
      await sql`ALTER TABLE access_log DROP CONSTRAINT ${sql.id(check)}`.execute(app.services.db);
    }
  });
});

describe('the access log: files and signed links', () => {
  test("a link is recorded when it is used, not when it is issued, on behalf of its issuer; a file's entry too", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const base = `${t.base}/patients/${patient.id}/document-summary`;
    const summary = await t.api.post(base, { type: 'doc-type-others' });
    assert.equal(summary.status, 201, summary.text);
    const { body, headers } = multipart([{ name: 'scan.pdf', content: sampleFile('pdf', 300) }]);
    const uploaded = await t.api.request('POST', `${base}/${summary.body.id}/files`, body, headers);
    assert.equal(uploaded.status, 201, uploaded.text);
    const fileId = uploaded.body[0].id as string;
    const linked = await t.api.get(`${base}/${summary.body.id}?signedUrls=true`);
    assert.equal(linked.status, 200, linked.text);
    const issued = await readsOf(t);
    assert.deepEqual(
      issued.map((record) => record.resourceType),
      ['DOCUMENT_SUMMARY'],
      'issuing a link is the summary read, not a use of the file',
    );
    const link = new URL(linked.body.jsonBody.files[0].url);
    for (let use = 0; use < 2; use++) {
      const bytes = await app.server.inject({ method: 'GET', url: `${link.pathname}${link.search}`, remoteAddress: '10.1.2.3' });
      assert.equal(bytes.statusCode, 200);
    }
    const [second, first] = await readsOf(t);
    assert.equal(first!.id === second!.id, false, 'each use is a record');
    assert.equal(second!.operation, 'GET /files/links/:fileId');
    assert.equal(second!.actorType, 'LINK');
    assert.equal(second!.actorId, t.adminClient.id);
    assert.equal(second!.onBehalfOf, `API_CLIENT:${t.adminClient.id}`);
    assert.equal(second!.resourceType, 'FILE');
    assert.deepEqual(second!.patientIds, [patient.id]);
    assert.deepEqual(second!.recordIds, [fileId]);
    assert.equal(second!.instanceId, t.instance.id);
    // "Everything API client C saw" takes in what its links showed.
    assert.equal((await readsOf(t, `&actorId=${t.adminClient.id}`)).length, 3);
    // A changed link shows nothing, and names no tenant to record it in.
    const forged = await app.server.inject({
      method: 'GET',
      url: `${link.pathname}${link.search.replace('API_CLIENT', 'USER')}`,
    });
    assert.equal(forged.statusCode, 403);
    assert.equal((await readsOf(t)).length, 3);
    // GET /files/{fileId} shows the file's entry: recorded too.
    assert.equal((await t.api.get(`${t.base}/files/${fileId}`)).status, 200);
    const [entry] = await accessLog(t);
    assert.deepEqual(
      [entry!.operation, entry!.actorType, entry!.patientIds],
      ['GET /:tenantName/:instanceName/files/:fileId', 'API_CLIENT', [patient.id]],
    );
  });
});

describe('the access log: exports', () => {
  test("an export page names its patients from the rows, where its items do not (a task's, an event's participants)", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const user = await t.api.post(`${t.admin}/users`, {
      username: 'host',
      email: 'host@example.org',
      firstName: 'Hal',
      lastName: 'Host',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    });
    assert.equal(user.status, 201, user.text);
    const task = await t.api.post(`${t.base}/tasks`, {
      name: 'Call the patient',
      status: 'TODO',
      priority: 'MEDIUM',
      assignee: { id: user.body.id },
      patient: { id: patient.id },
    });
    assert.equal(task.status, 201, task.text);
    const event = await t.api.post(`${t.base}/calendar/events`, {
      eventTitle: 'Visit',
      eventType: 'APPOINTMENT',
      startDateTime: '2026-06-01T16:00:00Z',
      endDateTime: '2026-06-01T17:00:00Z',
      hostId: user.body.id,
      participants: [{ participantId: patient.id, participantRole: 'patient' }],
    });
    assert.equal(event.status, 201, event.text);
    // The task's own reads name its patient (`patient.id`) too.
    assert.equal((await t.api.get(`${t.base}/tasks/${task.body.id}`)).status, 200);
    assert.equal((await t.api.get(`${t.base}/tasks?size=10`)).status, 200);
    const [list, one] = await accessLog(t);
    assert.deepEqual([list!.operation, list!.patientIds], ['GET /:tenantName/:instanceName/tasks', [patient.id]]);
    assert.deepEqual([one!.resourceType, one!.patientIds, one!.recordIds], ['TASK', [patient.id], [task.body.id]]);
    for (const resource of ['TASK', 'CALENDAR_EVENT']) {
      const page = await t.api.get(`${t.base}/export/${resource}`);
      assert.equal(page.status, 200, page.text);
      assert.equal(page.body.data.length, 1);
    }
    const [calendar, tasks] = await accessLog(t);
    assert.deepEqual([calendar!.resourceType, calendar!.patientIds], ['CALENDAR_EVENT', [patient.id]]);
    assert.deepEqual([tasks!.resourceType, tasks!.patientIds], ['TASK', [patient.id]]);
    assert.equal(tasks!.operation, 'GET /:tenantName/:instanceName/export/TASK');
  });
});

describe('the access log: every route declares what it discloses', () => {
  /** Keys that name a patient in an answer: their id, a message's patient (`patientInfo`), a `patient: {id, name}`. */
  const PATIENT_KEYS = ['patientId', 'patientInfo', 'patient'];

  /** Whether a schema (or one it refers to) carries patient data: a key naming a patient, or a patient's own fields. */
  function carriesPatients(schema: unknown, components: Record<string, unknown>, depth = 0): boolean {
    if (!schema || typeof schema !== 'object' || depth > 12) return false;
    const node = schema as Record<string, unknown>;
    if (typeof node.$ref === 'string') return carriesPatients(components[node.$ref.split('/').pop()!], components, depth + 1);
    const properties = node.properties as Record<string, unknown> | undefined;
    const names = Object.keys(properties ?? {});
    if (PATIENT_KEYS.some((key) => names.includes(key)) || (names.includes('firstName') && names.includes('birthDate')))
      return true;
    return Object.values(node).some((value) => typeof value === 'object' && carriesPatients(value, components, depth + 1));
  }

  test('a route under a patient, or whose answer carries patient data, says what it discloses (or why nothing): reads and writes', async () => {
    const document = (await app.server.inject({ method: 'GET', url: '/openapi.json' })).json();
    const components = document.components?.schemas ?? {};
    const undeclared: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        // An answer to a write that carries patient data is a disclosure too; a write answered with no body shows nothing.
        const answers = Object.entries<any>(operation.responses ?? {})
          .filter(([status]) => status.startsWith('2'))
          .map(([, response]) => response?.content?.['application/json']?.schema)
          .filter((schema) => schema !== undefined);
        if (answers.length === 0) continue;
        if (!path.includes('{patientId}') && !answers.some((answer) => carriesPatients(answer, components))) continue;
        checked += 1;
        const route = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`;
        if (!app.accessTable.get(route)?.discloses) undeclared.push(route);
      }
    }
    assert.ok(checked > 100, `${checked} routes carry patient data`);
    assert.deepEqual(
      undeclared,
      [],
      'declare `discloses` in needs(...): thePatient, eachPatient, itsPatient, patientsIn, or { none: why }',
    );
  });
});

describe('the access log: reading it', () => {
  test("a patient's history: everyone who saw the patient, newest first, filtered by caller and time", async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const other = await createPatient(t, { firstName: 'Bo', lastName: 'Quill' });
    const reader = await t.apiWith(['PATIENT_READ']);
    assert.equal((await t.api.get(`${t.base}/patients/${patient.id}`)).status, 200);
    assert.equal((await reader.get(`${t.base}/patients/${patient.id}`)).status, 200);
    assert.equal((await reader.get(`${t.base}/patients/${other.id}`)).status, 200);
    const history = await t.api.get(`${t.base}/patients/${patient.id}/access-log`);
    assert.equal(history.status, 200, history.text);
    // The create answered the patient too: its record is the oldest.
    assert.equal(history.body.metaInfo.totalElements, 3);
    const [newest, read, created] = history.body.data;
    assert.notEqual(newest.actorId, t.adminClient.id);
    assert.deepEqual([read.actorId, created.operation], [t.adminClient.id, 'POST /:tenantName/:instanceName/patients']);
    const byAdmin = await t.api.get(`${t.base}/patients/${patient.id}/access-log?actorId=${t.adminClient.id}`);
    assert.equal(byAdmin.body.data.length, 2);
    // Everything one caller saw, across patients.
    const readerId = newest.actorId as string;
    assert.equal((await accessLog(t, `&actorId=${readerId}`)).length, 2);
    assert.equal((await accessLog(t, `&patientId=${other.id}`)).length, 2);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    // A deleted patient's history: 404 under the patient, still on the tenant's log.
    assert.equal((await t.api.delete(`${t.base}/patients/${other.id}`)).status, 200);
    assertCode(await t.api.get(`${t.base}/patients/${other.id}/access-log`), 404, 'PATIENT_NOT_FOUND');
    assert.equal((await accessLog(t, `&patientId=${other.id}`)).length, 2);
    assert.equal((await accessLog(t, `&from=${future}`)).length, 0);
    assert.equal((await accessLog(t, `&operation=${encodeURIComponent('GET /:tenantName/:instanceName/patients')}`)).length, 0);
    // Reading the log writes nothing to it: its records hold ids and metadata only.
    assert.equal((await accessLog(t)).length, 5);
  });

  test('needs a token, ACCESS_LOG_READ (an administrator has it, a care coordinator not), and stays in its tenant', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const patient = await createPatient(a, { firstName: 'Ada', lastName: 'Quill' });
    assert.equal((await a.api.get(`${a.base}/patients/${patient.id}`)).status, 200);
    assert.equal((await a.anonymous.get(`${a.admin}/access-log`)).status, 401);
    const coordinator = await a.apiWith(['PATIENT_READ', 'TASK_READ']);
    assertCode(await coordinator.get(`${a.admin}/access-log`), 403, 'ACCESS_DENIED');
    assertCode(await coordinator.get(`${a.base}/patients/${patient.id}/access-log`), 403, 'ACCESS_DENIED');
    assertCode(await a.api.get(`${a.admin}/access-log?from=yesterday`), 400, 'VALIDATION_ERROR');
    assertCode(await a.api.get(`${a.base}/patients/not-an-id/access-log`), 400, 'VALIDATION_ERROR');
    // Tenant B sees none of A's records, even naming A's patient.
    assert.equal((await accessLog(b, `&patientId=${patient.id}`)).length, 0);
    assertCode(await b.api.get(`${b.base}/patients/${patient.id}/access-log`), 404, 'PATIENT_NOT_FOUND');
    assert.equal((await a.api.get(`${b.admin}/access-log`)).status, 403);
  });
});
