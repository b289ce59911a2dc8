import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertOutcome, errorsOf, fhirBase } from '../../test/fhir.ts';
import { assertCode, createPatient, createTestTenant, type Response, startApp } from '../../test/harness.ts';

/**
 * What the FHIR API does not serve answers as FHIR (docs/fhir.md, "The rules every resource
 * follows"): an unknown type 404, an interaction not served 405 with `Allow`, a format other than
 * JSON 406, any other path under the base 404, each an OperationOutcome in application/fhir+json;
 * the care-management API's misses keep its error array.
 */

const app = await startApp();

/** An OperationOutcome in FHIR's media type, valid R4, its issue `code` as said. */
function assertFhirError(response: Response<any>, status: number, code: string, issue: string) {
  assertOutcome(response, status, code);
  assert.match(String(response.headers['content-type']), /^application\/fhir\+json/);
  assert.equal(response.body.issue[0].code, issue);
  assert.deepEqual(errorsOf(response.body), []);
}

describe('FHIR R4: what is not served', () => {
  test('an unknown resource type is 404 not-supported, by GET, POST, POST _search and with an id, token or none', async () => {
    const t = await createTestTenant(app);
    const fhir = fhirBase(t);
    for (const api of [t.api, t.anonymous]) {
      assertFhirError(await api.get(`${fhir}/Immunization`), 404, 'FHIR_TYPE_NOT_SUPPORTED', 'not-supported');
      assertFhirError(await api.get(`${fhir}/Immunization/123`), 404, 'FHIR_TYPE_NOT_SUPPORTED', 'not-supported');
      const created = await api.request('POST', `${fhir}/Immunization`, JSON.stringify({ resourceType: 'Immunization' }), {
        'content-type': 'application/fhir+json',
      });
      assertFhirError(created, 404, 'FHIR_TYPE_NOT_SUPPORTED', 'not-supported');
      const searched = await api.request('POST', `${fhir}/Immunization/_search`, 'code=1234-5', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      assertFhirError(searched, 404, 'FHIR_TYPE_NOT_SUPPORTED', 'not-supported');
    }
    assert.match((await t.api.get(`${fhir}/Immunization`)).body.issue[0].diagnostics, /Immunization/);
  });

  test('create, update, patch and delete of a served type are 405 with Allow, whatever the body', async () => {
    const t = await createTestTenant(app);
    const fhir = fhirBase(t);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const body = JSON.stringify({ resourceType: 'Patient', id: patient.id, name: [{ family: 'Changed' }] });
    const asFhir = { 'content-type': 'application/fhir+json' };
    for (const [method, path, allow] of [
      ['POST', 'Patient', 'GET'],
      ['PUT', 'Patient', 'GET'],
      ['DELETE', 'Patient', 'GET'],
      ['PUT', `Patient/${patient.id}`, 'GET'],
      ['PATCH', `Patient/${patient.id}`, 'GET'],
      ['DELETE', `Patient/${patient.id}`, 'GET'],
      ['POST', 'metadata', 'GET'],
      ['PUT', 'Patient/_search', 'GET, POST'],
    ] as const) {
      const answer = await t.api.request(method, `${fhir}/${path}`, method === 'DELETE' ? undefined : body, asFhir);
      assertFhirError(answer, 405, 'FHIR_INTERACTION_NOT_SUPPORTED', 'not-supported');
      assert.equal(answer.headers.allow, allow, `${method} ${path}`);
    }
    // Nothing changed: the patient is as it was.
    assert.equal((await t.api.get(`${fhir}/Patient/${patient.id}`)).body.name[0].family, 'Quill');
    // No token needed to learn that nothing is written here, as for the CapabilityStatement.
    assertFhirError(
      await t.anonymous.delete(`${fhir}/Patient/${patient.id}`),
      405,
      'FHIR_INTERACTION_NOT_SUPPORTED',
      'not-supported',
    );
  });

  test('system interactions, history and operations not served are 405; other paths 404 ROUTE_NOT_FOUND', async () => {
    const t = await createTestTenant(app);
    const fhir = fhirBase(t);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const transaction = await t.api.request('POST', fhir, JSON.stringify({ resourceType: 'Bundle', type: 'transaction' }), {
      'content-type': 'application/fhir+json',
    });
    assertFhirError(transaction, 405, 'FHIR_INTERACTION_NOT_SUPPORTED', 'not-supported');
    assert.equal(transaction.headers.allow, '');
    for (const path of ['', '_history', '$everything', `Patient/${patient.id}/_history`, `Patient/${patient.id}/$everything`]) {
      assertFhirError(await t.api.get(`${fhir}/${path}`), 405, 'FHIR_INTERACTION_NOT_SUPPORTED', 'not-supported');
    }
    // Binary is read by id only (the documents area's route): its search is not served.
    const binarySearch = await t.api.get(`${fhir}/Binary`);
    assertFhirError(binarySearch, 405, 'FHIR_INTERACTION_NOT_SUPPORTED', 'not-supported');
    for (const path of ['.well-known/oauth-protected-resource', 'patient/123', 'not-a-type']) {
      assertFhirError(await t.api.get(`${fhir}/${path}`), 404, 'ROUTE_NOT_FOUND', 'not-found');
    }
    // The care-management API keeps its error array, under the instance and beside the FHIR base.
    assertCode(await t.api.get(`${t.base}/no-such-area`), 404, 'ROUTE_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/fhir/R5/Patient`), 404, 'ROUTE_NOT_FOUND');
    assertCode(await t.api.request('POST', `${t.base}/patients/${patient.id}/nothing`, {}), 404, 'ROUTE_NOT_FOUND');
  });

  test('a client that takes no JSON is 406; _format overrides Accept; JSON, FHIR JSON and wildcards are served', async () => {
    const t = await createTestTenant(app);
    const fhir = fhirBase(t);
    const patient = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const read = (accept: string | undefined, query = '') =>
      t.api.request('GET', `${fhir}/Patient/${patient.id}${query}`, undefined, accept === undefined ? {} : { accept });
    for (const [accept, query] of [
      ['application/fhir+xml', ''],
      ['application/xml', ''],
      ['application/fhir+json;q=0, application/fhir+xml', ''],
      [undefined, '?_format=xml'],
      ['application/fhir+json', '?_format=application/fhir%2Bxml'],
    ] as const) {
      assertFhirError(await read(accept, query), 406, 'FHIR_FORMAT_NOT_SUPPORTED', 'not-supported');
    }
    for (const [accept, query] of [
      [undefined, ''],
      ['application/fhir+json', ''],
      ['application/json', ''],
      ['application/fhir+json; fhirVersion=4.0', ''],
      ['application/fhir+xml, application/fhir+json;q=0.5', ''],
      ['text/html, */*;q=0.8', ''],
      ['application/fhir+xml', '?_format=json'],
    ] as const) {
      const served = await read(accept, query);
      assert.equal(served.status, 200, `${accept} ${query}: ${served.text}`);
      assert.match(String(served.headers['content-type']), /^application\/fhir\+json/);
    }
    const anonymous = await t.anonymous.request('GET', `${fhir}/metadata`, undefined, { accept: 'application/fhir+xml' });
    assertFhirError(anonymous, 406, 'FHIR_FORMAT_NOT_SUPPORTED', 'not-supported');
    const search = await t.api.request('GET', `${fhir}/Patient?family=quill`, undefined, { accept: 'application/fhir+xml' });
    assertFhirError(search, 406, 'FHIR_FORMAT_NOT_SUPPORTED', 'not-supported');
  });
});
