import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertOutcome, errorsOf, fhirBase, idsOf, profile } from '../../test/fhir.ts';
import { createPatient, createTestTenant, type Response, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * A search by POST (`POST [type]/_search`, R4 http.html): its parameters as a form, those of the
 * URL added to them, answered as the same search by GET: the same Bundle, the same errors, the
 * same access and the same access-log record.
 */

const app = await startApp();
const usCorePatient = profile('us-core-patient');
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

const byPost = (t: TestTenant, type: string, form: string, query = '', api = t.api): Promise<Response<any>> =>
  api.request('POST', `${fhirBase(t)}/${type}/_search${query}`, form, FORM);

describe('FHIR R4: search by POST', () => {
  test('a form searches as the URL does: the same Bundle, links as GETs; the URL and the form are one search', async () => {
    const t = await createTestTenant(app);
    const ada = await createPatient(t, { firstName: 'Ada', lastName: 'Smith', birthDate: '1980-01-01', gender: 'FEMALE' });
    const bob = await createPatient(t, { firstName: 'Bob', lastName: 'Smithers', birthDate: '1990-06-15', gender: 'MALE' });
    const cy = await createPatient(t, { firstName: 'Cy', lastName: 'Smith', birthDate: '1980-12-31' });
    for (const query of ['family=smi', 'family=smi&gender=male', 'name=ada,cy', 'birthdate=ge1980-06-01&birthdate=lt1991', '']) {
      const got = await t.api.get(`${fhirBase(t)}/Patient${query ? `?${query}` : ''}`);
      const posted = await byPost(t, 'Patient', query);
      assert.equal(posted.status, 200, posted.text);
      assert.match(String(posted.headers['content-type']), /^application\/fhir\+json/);
      assert.deepEqual(posted.body, got.body, query);
      for (const entry of posted.body.entry ?? []) assert.deepEqual(errorsOf(entry.resource, usCorePatient), []);
    }
    // The URL's parameters and the form's together: each applies (AND), a name in both too.
    assert.deepEqual(idsOf((await byPost(t, 'Patient', 'birthdate=1980', '?family=smith')).body), [ada.id, cy.id].sort());
    assert.deepEqual(idsOf((await byPost(t, 'Patient', 'given=ada', '?given=cy')).body), []);
    assert.deepEqual(
      idsOf((await byPost(t, 'Patient', 'family=smi&family=smithe')).body),
      [bob.id],
      'a name repeated in the form',
    );

    // Pages: the next link is a GET, followed to the end.
    const first = await byPost(t, 'Patient', 'family=smi&_count=2');
    assert.equal(first.body.entry.length, 2);
    const next = first.body.link.find((link: { relation: string }) => link.relation === 'next').url as string;
    assert.match(first.body.link[0].url, /\/Patient\?family=smi&_count=2$/);
    const rest = await t.api.get(new URL(next).pathname + new URL(next).search);
    assert.deepEqual([...idsOf(first.body), ...idsOf(rest.body)].sort(), [ada.id, bob.id, cy.id].sort());
    const count = await byPost(t, 'Patient', '_summary=count&family=smith');
    assert.deepEqual([count.body.total, count.body.entry], [3, undefined], 'Smith and Smithers');
    const withInclude = await byPost(t, 'CareTeam', `patient=${ada.id}&_include=CareTeam:participant`);
    assert.equal(withInclude.status, 200, withInclude.text);
    assert.deepEqual(idsOf(withInclude.body), [ada.id, ada.id], 'the team, and its patient included');
  });

  test('errors as the GET search: 400, 401, 403 as OperationOutcome; a JSON body is 415; the access log names the page', async () => {
    const t = await createTestTenant(app);
    const ada = await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    assertOutcome(await byPost(t, 'Patient', 'birthdate=yesterday'), 400, 'VALIDATION_ERROR');
    assertOutcome(await byPost(t, 'Patient', 'family=quill', '', t.anonymous), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertOutcome(await byPost(t, 'Patient', 'family=quill', '', await t.apiWith(['TASK_READ'])), 403, 'ACCESS_DENIED');
    const json = await t.api.request('POST', `${fhirBase(t)}/Patient/_search`, { family: 'quill' });
    assertOutcome(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    // No body at all is a search with the URL's parameters alone.
    const bare = await t.api.request('POST', `${fhirBase(t)}/Patient/_search?family=quill`);
    assert.equal(bare.status, 200, bare.text);
    assert.deepEqual(idsOf(bare.body), [ada.id]);

    const log = await t.api.get(`${t.admin}/access-log?size=100`);
    const pages = (log.body.data as any[]).filter((record) => record.operation.includes('/fhir/R4/Patient/_search'));
    assert.ok(pages.length > 0, 'the POST search is in the access log');
    assert.deepEqual([pages[0].resourceType, pages[0].patientIds], ['PATIENT', [ada.id]]);
  });

  test('a search is a read: Idempotency-Key keeps no Bundle, and each search answers afresh', async () => {
    const t = await createTestTenant(app);
    await createPatient(t, { firstName: 'Ada', lastName: 'Quill' });
    const key = { ...FORM, 'idempotency-key': 'search-1' };
    const search = () => t.api.request('POST', `${fhirBase(t)}/Patient/_search`, 'family=quill', key);
    assert.equal((await search()).status, 200);
    const bob = await createPatient(t, { firstName: 'Bob', lastName: 'Quill' });
    const again = await search();
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.ok(idsOf(again.body).includes(bob.id), 'the second search sees the patient made since');
    // A different search under the same key is not a 422 either.
    const other = await t.api.request('POST', `${fhirBase(t)}/Patient/_search`, 'family=smith', key);
    assert.equal(other.status, 200, other.text);
  });
});
