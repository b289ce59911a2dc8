import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  assertCode,
  assertValidation,
  createTestTenant,
  pageObjectKeys,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/** GET /patients/{id}/cdts/{cdtName}: the page, sort, fields, filters and the created-at window. */

const app = await startApp();

const formation = () =>
  testFormation({
    cdts: [
      {
        name: 'vitals',
        title: 'Vitals',
        fields: [
          { name: 'cdtf-systolic', type: 'integer' },
          { name: 'cdtf-weight', type: 'float' },
          { name: 'cdtf-position', type: 'select', options: ['SITTING', 'STANDING'] },
          { name: 'cdtf-tags', type: 'select', options: ['A', 'B', 'C'], multiple: true },
          { name: 'cdtf-fasting', type: 'boolean' },
          { name: 'cdtf-note', type: 'text' },
          { name: 'cdtf-meta', type: 'object' },
        ],
      },
    ],
  });

async function setup(): Promise<{ t: TestTenant; patientId: string; url: string }> {
  const t = await createTestTenant(app, formation());
  const patient = await t.api.post(`${t.base}/patients`, { firstName: 'Ada', lastName: 'Lovelace' });
  assert.equal(patient.status, 201, patient.text);
  return { t, patientId: patient.body.id, url: `${t.base}/patients/${patient.body.id}/cdts/vitals` };
}

async function create(t: TestTenant, url: string, values: Record<string, unknown>) {
  const response = await t.api.post(url, values);
  assert.equal(response.status, 201, response.text);
  return response.body as { id: string; jsonBody: Record<string, unknown> };
}

async function ids(t: TestTenant, url: string): Promise<string[]> {
  const response = await t.api.get(url);
  assert.equal(response.status, 200, response.text);
  return response.body.data.content.map((record: { id: string }) => record.id);
}

/** Three records with distinct values; created in this order. */
async function seed(t: TestTenant, url: string) {
  const low = await create(t, url, {
    'cdtf-systolic': 9,
    'cdtf-weight': 70.5,
    'cdtf-position': 'SITTING',
    'cdtf-tags': ['A', 'B'],
    'cdtf-fasting': true,
    'cdtf-note': 'morning',
  });
  const high = await create(t, url, {
    'cdtf-systolic': 100,
    'cdtf-weight': 80,
    'cdtf-position': 'STANDING',
    'cdtf-tags': ['C'],
    'cdtf-fasting': false,
    'cdtf-note': 'evening',
  });
  const empty = await create(t, url, {});
  return { low, high, empty };
}

describe('GET /patients/{id}/cdts/{cdtName}', () => {
  test('answers {name, data: page object}, newest first', async () => {
    const { t, url } = await setup();
    const { low, high, empty } = await seed(t, url);
    const response = await t.api.get(url);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body), ['name', 'data']);
    assert.equal(response.body.name, 'vitals');
    const page = response.body.data;
    assert.deepEqual(Object.keys(page).sort(), pageObjectKeys);
    assert.equal(page.totalElements, 3);
    assert.equal(page.size, 20);
    assert.deepEqual(
      page.content.map((r: { id: string }) => r.id),
      [empty.id, high.id, low.id],
    );
    // A listed record is the record as read alone, unset fields null.
    assert.deepEqual(page.content[2], (await t.api.get(`${url}/${low.id}`)).body);
    assert.equal(page.content[0].jsonBody['cdtf-note'], null);
    assert.equal(page.content[0].jsonBody.id, empty.id);
  });

  test('pages with page and size', async () => {
    const { t, url } = await setup();
    const { low, high, empty } = await seed(t, url);
    const second = await t.api.get(`${url}?page=1&size=2`);
    assert.equal(second.body.data.totalElements, 3);
    assert.equal(second.body.data.totalPages, 2);
    assert.equal(second.body.data.last, true);
    assert.deepEqual(
      second.body.data.content.map((r: { id: string }) => r.id),
      [low.id],
    );
    assert.deepEqual(await ids(t, `${url}?size=2`), [empty.id, high.id]);
    assertCode(await t.api.get(`${url}?size=0`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${url}?page=-1`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${url}?size=abc`), 400, 'VALIDATION_ERROR');
    // Unknown query parameters are ignored (DECISIONS §10).
    assert.equal((await t.api.get(`${url}?whatever=1`)).status, 200);
  });

  test('sorts by createdAt, updatedAt, or a field by its value', async () => {
    const { t, url } = await setup();
    const { low, high, empty } = await seed(t, url);
    assert.deepEqual(await ids(t, `${url}?sort=createdAt,asc`), [low.id, high.id, empty.id]);
    assert.deepEqual(await ids(t, `${url}?sort=createdAt,desc`), [empty.id, high.id, low.id]);
    await t.api.patch(`${url}/${low.id}`, { 'cdtf-note': 'touched' });
    assert.deepEqual((await ids(t, `${url}?sort=updatedAt,desc`))[0], low.id);
    // Numbers sort as numbers (9 before 100), and records without the value come last when ascending.
    assert.deepEqual(await ids(t, `${url}?sort=cdtf-systolic,asc`), [low.id, high.id, empty.id]);
    // Descending puts records without the value first, as every sort here does (nulls first).
    assert.deepEqual(await ids(t, `${url}?sort=cdtf-systolic,desc`), [empty.id, high.id, low.id]);
    assert.deepEqual(await ids(t, `${url}?sort=cdtf-note`), [high.id, low.id, empty.id]);
    const sorted = await t.api.get(`${url}?sort=cdtf-note,asc`);
    assert.equal(sorted.body.data.sort.sorted, true);
    const bad = await t.api.get(`${url}?sort=nope,asc`);
    assertCode(bad, 400, 'INVALID_SORT');
    assert.ok(bad.body[0].details.sortableFields.includes('cdtf-systolic'));
    assertCode(await t.api.get(`${url}?sort=createdAt,sideways`), 400, 'INVALID_SORT');
  });

  test('fields limits the custom fields of jsonBody; system fields stay', async () => {
    const { t, url } = await setup();
    const { low } = await seed(t, url);
    const response = await t.api.get(`${url}?fields=cdtf-note,cdtf-systolic&sort=createdAt,asc`);
    assert.equal(response.status, 200, response.text);
    const body = response.body.data.content[0].jsonBody;
    assert.deepEqual(Object.keys(body), [
      'external_guid',
      'created_at',
      'source_type',
      'external_id',
      'created_by_name',
      'created_by',
      'updated_by_name',
      'updated_at',
      'updated_by',
      'cdtf-note',
      'cdtf-systolic',
      'id',
      'source_id',
      'source_name',
    ]);
    assert.equal(body.id, low.id);
    assert.equal(body['cdtf-note'], 'morning');
    // A listed field the record lacks is null.
    const last = (await t.api.get(`${url}?fields=cdtf-note&sort=createdAt,desc`)).body.data.content[0].jsonBody;
    assert.equal(last['cdtf-note'], null);
    const unknown = await t.api.get(`${url}?fields=cdtf-note,nope`);
    assertCode(unknown, 400, 'VALIDATION_ERROR');
    assert.equal(unknown.body[0].details.errors[0].path, 'query.fields');
  });

  test('filters: field:value conditions read by the field type, all of which must hold', async () => {
    const { t, url } = await setup();
    const { low, high } = await seed(t, url);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-systolic:100`), [high.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-weight:70.50`), [low.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-weight:80`), [high.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-position:SITTING`), [low.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-fasting:TRUE`), [low.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-fasting:false`), [high.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-tags:B`), [low.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-note:evening`), [high.id]);
    // A value with a colon keeps it: only the first colon separates.
    const colon = await create(t, url, { 'cdtf-note': 'at 10:30' });
    assert.deepEqual(await ids(t, `${url}?filters=${encodeURIComponent('cdtf-note:at 10:30')}`), [colon.id]);
    // Several conditions, comma-separated or repeated, must all hold.
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-systolic:9,cdtf-position:SITTING`), [low.id]);
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-systolic:9&filters=cdtf-position:STANDING`), []);
    // The count follows the filter.
    assert.equal((await t.api.get(`${url}?filters=cdtf-tags:C`)).body.data.totalElements, 1);
    // A string never matches a number field's value: 9 is read as a number.
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-note:9`), []);
  });

  test('a filter on an unknown field, a badly typed value or a malformed condition is a 400', async () => {
    const { t, url } = await setup();
    await seed(t, url);
    for (const filter of [
      'nope:1',
      'cdtf-systolic:high',
      'cdtf-systolic:1.5',
      'cdtf-weight:heavy',
      'cdtf-fasting:yes',
      'cdtf-meta:{}',
      'no-colon',
      ':x',
    ]) {
      const response = await t.api.get(`${url}?filters=${encodeURIComponent(filter)}`);
      assertCode(response, 400, 'VALIDATION_ERROR', filter);
      assert.equal(response.body[0].details.errors[0].path, 'query.filters', filter);
    }
    // At most 100 conditions: each one is a clause of the query.
    const many = Array(101).fill('cdtf-systolic:100').join(',');
    assertValidation(await t.api.get(`${url}?filters=${many}`), 'querystring.filters');
    assert.equal((await t.api.get(`${url}?filters=${Array(100).fill('cdtf-systolic:100').join(',')}`)).status, 200);
  });

  test('dateStart (inclusive) and dateEnd (exclusive) bound createdAt', async () => {
    const { t, url } = await setup();
    const { low, high, empty } = await seed(t, url);
    const at = (id: string, iso: string) =>
      app.services.db
        .updateTable('cdt_records')
        .set({ created_at: new Date(iso) })
        .where('tenant_id', '=', t.tenant.id)
        .where('id', '=', id)
        .execute();
    await at(low.id, '2024-01-01T00:00:00.000Z');
    await at(high.id, '2024-02-01T00:00:00.000Z');
    await at(empty.id, '2024-03-01T00:00:00.000Z');
    assert.deepEqual(await ids(t, `${url}?dateStart=2024-02-01T00:00:00.000Z`), [empty.id, high.id]);
    assert.deepEqual(await ids(t, `${url}?dateEnd=2024-02-01T00:00:00.000Z`), [low.id]);
    assert.deepEqual(await ids(t, `${url}?dateStart=2024-01-15T00:00:00Z&dateEnd=2024-03-01T00:00:00Z`), [high.id]);
    assert.deepEqual(await ids(t, `${url}?dateStart=2024-02-01T01:00:00%2B01:00&dateEnd=2024-02-01T00:00:00.001Z`), [high.id]);
    assertCode(await t.api.get(`${url}?dateStart=yesterday`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${url}?dateEnd=2024-13-01T00:00:00Z`), 400, 'VALIDATION_ERROR');
  });

  test('records of another patient, type or instance are not listed', async () => {
    const { t, url } = await setup();
    const { low } = await seed(t, url);
    const other = await t.api.post(`${t.base}/patients`, { firstName: 'B', lastName: 'C' });
    const otherUrl = `${t.base}/patients/${other.body.id}/cdts/vitals`;
    const theirs = await create(t, otherUrl, { 'cdtf-systolic': 9 });
    assert.deepEqual(await ids(t, `${otherUrl}`), [theirs.id]);
    assert.ok(!(await ids(t, url)).includes(theirs.id));
    assert.deepEqual(await ids(t, `${url}?filters=cdtf-systolic:9`), [low.id]);
  });

  test('404 for an unknown type or patient; 400 for a bad patient id; 401; 403 without CDT_READ', async () => {
    const { t, url } = await setup();
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/cdts/vitals`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(url.replace('/vitals', '/nope')), 404, 'CDT_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patients/nope/cdts/vitals`), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const writer = await t.apiWith(['CDT_UPDATE']);
    const denied = await writer.get(url);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'CDT_READ');
    const reader = await t.apiWith(['CDT_READ']);
    assert.equal((await reader.get(url)).status, 200);
  });

  test("a token for another tenant is 403; that tenant's patients are 404 here", async () => {
    const { t: a } = await setup();
    const { t: b, patientId, url } = await setup();
    await seed(b, url);
    assertCode(await a.api.get(url), 403, 'TENANT_ACCESS_DENIED');
    assertCode(await a.api.get(`${a.base}/patients/${patientId}/cdts/vitals`), 404, 'PATIENT_NOT_FOUND');
    assert.equal((await b.api.get(url)).body.data.totalElements, 3);
  });
});
