import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { assertOutcome, createUser, errorsOf, fhirBase, idsOf, usCoreErrors } from '../../test/fhir.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import { Api, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';
import { INLINE_BYTES } from '../documents/binary-fhir.ts';

/**
 * DocumentReference (US Core 6.1.0) from document summaries, and their files as Binary: every
 * resource the routes answer validates, the attachments link to Binary, which answers the bytes
 * as uploaded (or a Binary resource for FHIR JSON); searches, paging, permissions, tenancy and
 * the access log.
 */

// Late in the day, so a document written half an hour on is the next day's (a token lives an hour).
const clock = new TestClock('2026-03-10T23:40:00.000Z');
const app = await startApp({}, { clock });

/** DocumentReferenceStatus: a required binding, its codes checked here since the validator checks none. */
const STATUSES = ['current', 'superseded', 'entered-in-error'];

const summaries = (t: TestTenant, patientId: string) => `${t.base}/patients/${patientId}/document-summary`;

async function createSummary(api: Api, t: TestTenant, patientId: string, type = 'doc-type-others') {
  const response = await api.post(summaries(t, patientId), { type });
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string };
}

async function upload(api: Api, t: TestTenant, patientId: string, summaryId: string, name: string, content: Buffer) {
  const form = multipart([{ name, content }]);
  const response = await api.request('POST', `${summaries(t, patientId)}/${summaryId}/files`, form.body, form.headers);
  assert.equal(response.status, 201, response.text);
  return response.body[0] as { id: string; size: number; contentType: string; originalName: string };
}

/** A user of the tenant signed in: what it writes names it as a user (a Practitioner). */
async function signedIn(t: TestTenant): Promise<{ api: Api; id: string }> {
  const user = await createUser(t, { roles: [{ permissionName: 'admin', instanceName: t.instance.name }] });
  await t.api.put(`${t.admin}/users/${user.username}/password`, { password: 'documents test password' });
  const login = await t.anonymous.post('/auth/token', {
    tenantName: t.tenant.name,
    username: user.username,
    password: 'documents test password',
  });
  assert.equal(login.status, 200, login.text);
  return { api: new Api(app.server, login.body.token), id: user.id };
}

function assertValid(resource: any) {
  assert.deepEqual(usCoreErrors(resource, 'us-core-documentreference'), []);
  assert.ok(STATUSES.includes(resource.status), resource.status);
}

describe('FHIR R4: DocumentReference (document summaries)', () => {
  test('read and search validate against US Core DocumentReference; files are attachments linked to Binary', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const other = await createPatient(t, { firstName: 'Bo', lastName: 'Other' });
    const nurse = await signedIn(t);
    const filed = await createSummary(nurse.api, t, patient.id, 'doc-type-esign');
    const png = await upload(nurse.api, t, patient.id, filed.id, 'consent.png', sampleFile('png', 300));
    const pdf = await upload(nurse.api, t, patient.id, filed.id, 'consent.pdf', sampleFile('pdf', 500));
    clock.advance(30 * 60_000);
    const bare = await createSummary(t.api, t, patient.id);
    const theirs = await createSummary(t.api, t, other.id, 'doc-type-assessment');

    const read = await t.api.get(`${fhirBase(t)}/DocumentReference/${filed.id}`);
    assert.equal(read.status, 200, read.text);
    assert.match(String(read.headers['content-type']), /^application\/fhir\+json/);
    const document = read.body;
    assertValid(document);
    assert.equal(document.status, 'current');
    assert.deepEqual(document.subject, { reference: `Patient/${patient.id}` });
    // US Core 6.1.0's required binding: NullFlavor's UNK (no LOINC code is known), then Cairn's type.
    assert.deepEqual(document.type.coding, [
      { system: 'http://terminology.hl7.org/CodeSystem/v3-NullFlavor', code: 'UNK', display: 'unknown' },
      { system: 'https://cairn.health/fhir/CodeSystem/document-type', code: 'doc-type-esign' },
    ]);
    assert.equal(document.category[0].coding[0].code, 'patient-document');
    assert.equal(document.date, '2026-03-10T23:40:00.000Z');
    assert.deepEqual(document.author, [{ reference: `Practitioner/${nurse.id}` }]);
    assert.deepEqual(
      document.content.map((content: any) => content.attachment),
      [png, pdf].map((file) => ({
        contentType: file.contentType,
        url: `http://localhost:80${fhirBase(t)}/Binary/${file.id}`,
        size: file.size,
        title: file.originalName,
        creation: '2026-03-10T23:40:00.000Z',
      })),
    );
    // A summary with no file yet: US Core needs an attachment, so it says why there is none.
    const minimal = (await t.api.get(`${fhirBase(t)}/DocumentReference/${bare.id}`)).body;
    assertValid(minimal);
    assert.deepEqual(minimal.content, [
      {
        attachment: { extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/data-absent-reason', valueCode: 'unknown' }] },
      },
    ]);
    assert.deepEqual(minimal.author, [{ display: `API_CLIENT:${t.adminClient.name}` }], 'an API client is named only');

    const search = async (query: string) => {
      const response = await t.api.get(`${fhirBase(t)}/DocumentReference?${query}`);
      assert.equal(response.status, 200, response.text);
      for (const entry of response.body.entry ?? []) assertValid(entry.resource);
      return idsOf(response.body);
    };
    // US Core's combinations: patient; patient+category; patient+category+date; patient+type.
    assert.deepEqual(await search(`patient=${patient.id}`), [filed.id, bare.id].sort());
    assert.deepEqual(await search(`patient=Patient/${patient.id}&category=patient-document`), [filed.id, bare.id].sort());
    assert.deepEqual(
      await search(`patient=${patient.id}&category=https://cairn.health/fhir/CodeSystem/document-category|patient-document`),
      [filed.id, bare.id].sort(),
    );
    assert.deepEqual(await search(`patient=${patient.id}&category=clinical-note`), []);
    assert.deepEqual(await search(`patient=${patient.id}&category=patient-document&date=2026-03-10`), [filed.id]);
    assert.deepEqual(await search(`patient=${patient.id}&category=patient-document&date=gt2026-03-10`), [bare.id]);
    assert.deepEqual(await search(`patient=${patient.id}&type=doc-type-esign`), [filed.id]);
    assert.deepEqual(await search('type=https://cairn.health/fhir/CodeSystem/document-type|doc-type-assessment'), [theirs.id]);
    assert.deepEqual(await search('type=http://loinc.org|doc-type-esign'), []);
    assert.deepEqual(
      await search(`patient=${patient.id}&type=http://terminology.hl7.org/CodeSystem/v3-NullFlavor|UNK`),
      [filed.id, bare.id].sort(),
    );
    assert.deepEqual(await search('type=http://terminology.hl7.org/CodeSystem/v3-NullFlavor|NI'), []);
    assert.deepEqual(await search(`subject=${other.id}`), [theirs.id]);
    // A repeated parameter is AND, a comma OR.
    assert.deepEqual(await search('type=doc-type-esign,doc-type-assessment'), [filed.id, theirs.id].sort());
    assert.deepEqual(await search('date=ge2026-03-10&date=lt2026-03-11'), [filed.id]);
    assert.deepEqual(await search('status=current'), [filed.id, bare.id, theirs.id].sort());
    assert.deepEqual(await search('status=superseded'), []);
    assert.deepEqual(await search(`_id=${theirs.id},${bare.id}`), [bare.id, theirs.id].sort());
    assert.deepEqual(await search('_lastUpdated=gt2026-03-11T00:00:00Z'), [bare.id, theirs.id].sort());
    assert.deepEqual(await search(`patient=${randomUUID()}`), []);
    assertOutcome(await t.api.get(`${fhirBase(t)}/DocumentReference?status=final`), 400, 'VALIDATION_ERROR');
    assertOutcome(await t.api.get(`${fhirBase(t)}/DocumentReference?date=yesterday`), 400, 'VALIDATION_ERROR');
    const counted = (await t.api.get(`${fhirBase(t)}/DocumentReference?patient=${patient.id}&_summary=count`)).body;
    assert.deepEqual([counted.total, counted.entry], [2, undefined]);

    // Paged by next links: every document once, in id order.
    const seen: string[] = [];
    let url: string | undefined = `${fhirBase(t)}/DocumentReference?_count=1`;
    while (url) {
      const page: any = (await t.api.get(url.replace('http://localhost:80', ''))).body;
      seen.push(...page.entry.map((entry: any) => entry.resource.id));
      url = page.link.find((link: any) => link.relation === 'next')?.url;
    }
    assert.deepEqual(seen, [filed.id, bare.id, theirs.id].sort());

    // A deleted summary is gone from reads and searches.
    assert.equal((await t.api.delete(`${summaries(t, patient.id)}/${bare.id}`)).status, 200);
    assertOutcome(await t.api.get(`${fhirBase(t)}/DocumentReference/${bare.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assert.deepEqual(await search(`patient=${patient.id}`), [filed.id]);
  });

  test("DOCUMENT_READ is needed; a missing or another tenant's document is 404; reads name their patients in the access log", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const mine = await createSummary(t.api, t, patient.id);
    const theirPatient = await createPatient(other, { firstName: 'Bo', lastName: 'Other' });
    const theirs = await createSummary(other.api, other, theirPatient.id);

    assertOutcome(await t.api.get(`${fhirBase(t)}/DocumentReference/${theirs.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assertOutcome(await t.api.get(`${fhirBase(t)}/DocumentReference/not-a-uuid`), 404, 'DT_RECORD_NOT_FOUND');
    assert.deepEqual(idsOf((await t.api.get(`${fhirBase(t)}/DocumentReference`)).body), [mine.id]);
    assert.deepEqual(idsOf((await other.api.get(`${fhirBase(other)}/DocumentReference`)).body), [theirs.id]);
    const patientReader = await t.apiWith(['PATIENT_READ']);
    assertOutcome(await patientReader.get(`${fhirBase(t)}/DocumentReference`), 403, 'ACCESS_DENIED');
    assertOutcome(await patientReader.get(`${fhirBase(t)}/DocumentReference/${mine.id}`), 403, 'ACCESS_DENIED');

    assert.equal((await t.api.get(`${fhirBase(t)}/DocumentReference/${mine.id}`)).status, 200);
    assert.equal((await t.api.get(`${fhirBase(t)}/DocumentReference?patient=${patient.id}`)).status, 200);
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const [page, read] = (log.body.data as any[]).filter((record) => record.operation.includes('/fhir/R4/DocumentReference'));
    assert.deepEqual([read.resourceType, read.patientIds, read.recordIds], ['DOCUMENT_SUMMARY', [patient.id], [mine.id]]);
    assert.deepEqual([page.resourceType, page.patientIds], ['DOCUMENT_SUMMARY', [patient.id]]);
  });
});

describe('FHIR R4: Binary (a document’s file)', () => {
  test('the bytes as uploaded, streamed; a Binary resource for FHIR JSON when small; the bytes when large', async () => {
    const t = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const summary = await createSummary(t.api, t, patient.id);
    const bytes = sampleFile('png', 2000);
    const file = await upload(t.api, t, patient.id, summary.id, 'scan.png', bytes);
    const large = sampleFile('pdf', INLINE_BYTES + 1);
    const big = await upload(t.api, t, patient.id, summary.id, 'scan.pdf', large);
    const url = `${fhirBase(t)}/Binary/${file.id}`;

    const raw = await app.server.inject({ method: 'GET', url, headers: { authorization: `Bearer ${t.api.token}` } });
    assert.equal(raw.statusCode, 200, raw.body);
    assert.equal(raw.headers['content-type'], 'image/png');
    assert.deepEqual(raw.rawPayload, bytes);
    const ranged = await app.server.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${t.api.token}`, range: 'bytes=0-7' },
    });
    assert.equal(ranged.statusCode, 206);
    assert.deepEqual(ranged.rawPayload, bytes.subarray(0, 8));

    const resource = await t.api.request('GET', url, undefined, { accept: 'application/fhir+json' });
    assert.equal(resource.status, 200, resource.text);
    assert.match(String(resource.headers['content-type']), /^application\/fhir\+json/);
    assert.deepEqual(errorsOf(resource.body), []);
    assert.equal(resource.body.resourceType, 'Binary');
    assert.equal(resource.body.contentType, 'image/png');
    assert.deepEqual(resource.body.securityContext, { reference: `DocumentReference/${summary.id}` });
    assert.deepEqual(Buffer.from(resource.body.data, 'base64'), bytes);

    const past = await app.server.inject({
      method: 'GET',
      url: `${fhirBase(t)}/Binary/${big.id}`,
      headers: { authorization: `Bearer ${t.api.token}`, accept: 'application/fhir+json' },
    });
    assert.equal(past.statusCode, 200);
    assert.equal(past.headers['content-type'], 'application/pdf', `past ${INLINE_BYTES} bytes the file comes as itself`);
    assert.deepEqual(past.rawPayload, large);

    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const reads = (log.body.data as any[]).filter((record) => record.operation.includes('/fhir/R4/Binary'));
    assert.equal(reads.length, 4);
    for (const record of reads) assert.deepEqual([record.resourceType, record.patientIds], ['FILE', [patient.id]]);
  });

  test("DOCUMENT_READ is needed; another tenant's file, another area's file and a missing one are 404", async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const mine = await upload(t.api, t, patient.id, (await createSummary(t.api, t, patient.id)).id, 'a.png', sampleFile('png'));
    const theirPatient = await createPatient(other, { firstName: 'Bo', lastName: 'Other' });
    const theirSummary = await createSummary(other.api, other, theirPatient.id);
    const theirs = await upload(other.api, other, theirPatient.id, theirSummary.id, 'b.png', sampleFile('png'));
    const chat = multipart([{ name: 'photo.png', content: sampleFile('png'), field: 'attachmentAsFiles' }]);
    const message = await t.api.request('POST', `${t.base}/patients/${patient.id}/chat/inbound`, chat.body, chat.headers);
    assert.equal(message.status, 200, message.text);

    for (const id of [theirs.id, message.body.attachments[0].id, randomUUID(), 'not-a-uuid']) {
      assertOutcome(await t.api.get(`${fhirBase(t)}/Binary/${id}`), 404, 'FILE_NOT_FOUND');
    }
    const chatReader = await t.apiWith(['CHAT_READ', 'PATIENT_READ']);
    assertOutcome(await chatReader.get(`${fhirBase(t)}/Binary/${mine.id}`), 403, 'ACCESS_DENIED');
    const reader = await t.apiWith(['DOCUMENT_READ']);
    assert.equal((await reader.get(`${fhirBase(t)}/Binary/${mine.id}`)).status, 200);
  });

  test('the CapabilityStatement lists DocumentReference with its US Core profile and parameters, and Binary read only', async () => {
    const t = await createTestTenant(app);
    const capability = (await t.anonymous.get(`${fhirBase(t)}/metadata`)).body;
    assert.deepEqual(errorsOf(capability), []);
    const resources = capability.rest[0].resource as any[];
    const documents = resources.find((resource) => resource.type === 'DocumentReference');
    assert.deepEqual(documents.supportedProfile, [
      'http://hl7.org/fhir/us/core/StructureDefinition/us-core-documentreference|6.1.0',
    ]);
    assert.deepEqual(documents.searchParam.map((param: any) => param.name).sort(), [
      '_id',
      '_lastUpdated',
      'category',
      'date',
      'patient',
      'status',
      'subject',
      'type',
    ]);
    assert.deepEqual(
      resources.filter((resource) => resource.type === 'Binary'),
      [{ type: 'Binary', interaction: [{ code: 'read' }] }],
    );
  });
});
