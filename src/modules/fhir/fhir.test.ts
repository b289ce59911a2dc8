import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client } from 'fhir-kit-client';
import { errorsOf, fhirBase, profile } from '../../test/fhir.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * The FHIR R4 API, checked by outside implementations: every Patient the routes answer validates
 * with no error against US Core 6.1.0's Patient profile by @medplum/core's validator, and a FHIR
 * client from npm (fhir-kit-client) reads, searches and follows `next` links over a real socket.
 */

const usCorePatient = profile('us-core-patient');

const app = await startApp();
const address = await app.server.listen({ port: 0, host: '127.0.0.1' });
after(() => app.server.close());

/** The FHIR client, as a FHIR application would hold it: the base URL and a bearer token. */
function fhirClient(t: TestTenant) {
  return new Client({ baseUrl: `${address}${fhirBase(t)}`, bearerToken: t.api.token });
}

describe('FHIR R4: Patient', () => {
  test('read: a full patient and one with only a name validate against US Core Patient; every gender', async () => {
    const t = await createTestTenant(app);
    const full = await createPatient(t, {
      firstName: 'Ada',
      middleName: 'M',
      lastName: 'Quill',
      birthDate: '1970-03-04',
      gender: 'FEMALE',
      mrn: 'MRN-F1',
      externalId: 'ext-1',
      email: 'ada@example.org',
      phone: '+12015550123',
      addressLine1: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      zip: '62701',
      country: 'US',
      primaryLanguage: 'ENGLISH',
    });
    const bare = await createPatient(t, { firstName: 'Bo', lastName: 'Nameonly' });
    const read = await t.api.get(`${fhirBase(t)}/Patient/${full.id}`);
    assert.equal(read.status, 200, read.text);
    assert.match(String(read.headers['content-type']), /^application\/fhir\+json/);
    const patient = read.body;
    assert.deepEqual(errorsOf(patient, usCorePatient), []);
    assert.equal(patient.resourceType, 'Patient');
    assert.equal(patient.id, full.id);
    assert.deepEqual(patient.name, [{ use: 'official', family: 'Quill', given: ['Ada', 'M'] }]);
    assert.equal(patient.birthDate, '1970-03-04');
    assert.equal(patient.gender, 'female');
    assert.ok(patient.identifier.some((id: any) => id.value === 'MRN-F1' && id.type.coding[0].code === 'MR'));
    const minimal = (await t.api.get(`${fhirBase(t)}/Patient/${bare.id}`)).body;
    assert.deepEqual(errorsOf(minimal, usCorePatient), []);
    assert.equal(minimal.gender, 'unknown', 'no gender is unknown: US Core needs one');
    assert.equal(minimal.telecom, undefined, 'no empty arrays');
    for (const [cairn, fhir] of [
      ['MALE', 'male'],
      ['FEMALE', 'female'],
      ['OTHER', 'other'],
      ['UNKNOWN', 'unknown'],
    ]) {
      const one = await createPatient(t, { firstName: 'G', lastName: cairn!, gender: cairn });
      const shown = (await t.api.get(`${fhirBase(t)}/Patient/${one.id}`)).body;
      assert.equal(shown.gender, fhir);
      assert.deepEqual(errorsOf(shown, usCorePatient), []);
    }
  });

  test('errors are OperationOutcome: 404 for a missing or foreign id, 401 without a token, 403 without PATIENT_READ', async () => {
    const a = await createTestTenant(app);
    const b = await createTestTenant(app);
    const theirs = await createPatient(b, { firstName: 'Bo', lastName: 'Other' });
    for (const id of [theirs.id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const missing = await a.api.get(`${fhirBase(a)}/Patient/${id}`);
      assert.equal(missing.status, 404);
      assert.equal(missing.body.resourceType, 'OperationOutcome');
      assert.equal(missing.body.issue[0].code, 'not-found');
      assert.deepEqual(errorsOf(missing.body), []);
    }
    const anonymous = await a.anonymous.get(`${fhirBase(a)}/Patient`);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.issue[0].code, 'login');
    const denied = await (await a.apiWith(['TASK_READ'])).get(`${fhirBase(a)}/Patient`);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.issue[0].code, 'forbidden');
    const bad = await a.api.get(`${fhirBase(a)}/Patient?birthdate=yesterday`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.issue[0].code, 'invalid');
    assert.match(bad.body.issue[0].diagnostics, /birthdate/);
    // The care-management API keeps its own error format.
    assertCode(await a.api.get(`${a.base}/patients/${theirs.id}`), 404, 'PATIENT_NOT_FOUND');
  });

  test('search: US Core parameters and their combinations, AND and OR, _summary=count; another tenant never shows', async () => {
    const t = await createTestTenant(app);
    const other = await createTestTenant(app);
    await createPatient(other, { firstName: 'Ada', lastName: 'Smith', birthDate: '1980-01-01', gender: 'FEMALE' });
    const ada = await createPatient(t, {
      firstName: 'Ada',
      lastName: 'Smith',
      birthDate: '1980-01-01',
      gender: 'FEMALE',
      mrn: 'M-1',
    });
    const bob = await createPatient(t, { firstName: 'Bob', lastName: 'Smithers', birthDate: '1990-06-15', gender: 'MALE' });
    const cy = await createPatient(t, { firstName: 'Cy', lastName: 'Jones', birthDate: '1980-12-31' });
    const ids = async (query: string) => {
      const bundle = await t.api.get(`${fhirBase(t)}/Patient?${query}`);
      assert.equal(bundle.status, 200, bundle.text);
      assert.equal(bundle.body.type, 'searchset');
      return ((bundle.body.entry ?? []) as { resource: { id: string } }[]).map((entry) => entry.resource.id).sort();
    };
    const sorted = (...list: { id: string }[]) => list.map((p) => p.id).sort();
    assert.deepEqual(await ids('family=smi'), sorted(ada, bob), 'starts-with, any case');
    assert.deepEqual(await ids('family=SMITH&given=ada'), sorted(ada));
    assert.deepEqual(await ids('name=jo'), sorted(cy));
    assert.deepEqual(await ids('name=ada,cy'), sorted(ada, cy), 'a comma is OR');
    assert.deepEqual(await ids('birthdate=1980'), sorted(ada, cy), 'a year is every day of it');
    assert.deepEqual(await ids('birthdate=ge1980-06-01&birthdate=lt1991'), sorted(bob, cy), 'repeated is AND');
    assert.deepEqual(await ids('family=smith&birthdate=1980-01-01'), sorted(ada));
    assert.deepEqual(await ids('gender=male'), sorted(bob));
    assert.deepEqual(await ids('gender=unknown'), sorted(cy), 'no gender is unknown');
    assert.deepEqual(await ids('family=jones&gender=unknown'), sorted(cy));
    assert.deepEqual(await ids(`_id=${ada.id},${cy.id}`), sorted(ada, cy));
    assert.deepEqual(await ids('identifier=https://cairn.health/fhir/sid/mrn|M-1'), sorted(ada));
    assert.deepEqual(await ids('identifier=M-1'), sorted(ada));
    assert.deepEqual(await ids('identifier=http://elsewhere.example/mrn|M-1'), []);
    assert.deepEqual(await ids('name=nobody'), []);
    const count = await t.api.get(`${fhirBase(t)}/Patient?family=smi&_summary=count`);
    assert.deepEqual([count.body.total, count.body.entry], [2, undefined]);
    // A parameter not served is ignored, and not in the self link.
    const lenient = await t.api.get(`${fhirBase(t)}/Patient?family=jones&_revinclude=Observation:patient`);
    assert.equal(lenient.status, 200);
    assert.doesNotMatch(lenient.body.link[0].url, /_revinclude/);
    for (const entry of lenient.body.entry) assert.deepEqual(errorsOf(entry.resource, usCorePatient), []);
    assert.deepEqual(errorsOf(lenient.body), []);
  });

  test('a FHIR client from npm reads, searches and follows next links to the end, each page in the access log', async () => {
    const t = await createTestTenant(app);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await createPatient(t, { firstName: `P${i}`, lastName: 'Paged' })).id);
    const client = fhirClient(t);
    const capability = (await client.capabilityStatement()) as any;
    const nowhere = await t.anonymous.get(`/${t.tenant.name}/no-such-instance/fhir/R4/metadata`);
    assert.deepEqual([nowhere.status, nowhere.body.issue[0].code], [404, 'not-found']);
    assert.equal(capability.resourceType, 'CapabilityStatement');
    assert.deepEqual(errorsOf(capability), []);
    const patientCapability = capability.rest[0].resource.find((resource: { type: string }) => resource.type === 'Patient');
    assert.deepEqual(patientCapability.searchParam.map((param: { name: string }) => param.name).sort(), [
      '_id',
      '_lastUpdated',
      'birthdate',
      'family',
      'gender',
      'given',
      'identifier',
      'name',
    ]);
    const one = (await client.read({ resourceType: 'Patient', id: made[0]! })) as any;
    assert.equal(one.id, made[0]);
    let bundle = (await client.search({ resourceType: 'Patient', searchParams: { family: 'paged', _count: 3 } })) as any;
    const seen: string[] = [];
    let pages = 0;
    for (;;) {
      pages += 1;
      seen.push(...(bundle.entry ?? []).map((entry: any) => entry.resource.id));
      const next = await client.nextPage({ bundle });
      if (!next) break;
      bundle = next;
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen.sort(), [...made].sort(), 'each once, none lost');
    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const reads = (log.body.data as any[]).filter((record) => record.operation.includes('/fhir/R4/Patient'));
    assert.equal(reads.length, 4, 'the read and each page');
    assert.deepEqual(reads.at(-1).patientIds, [made[0]]);
  });
});
