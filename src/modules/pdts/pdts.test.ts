import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
import { systemContext } from '../../http/context.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestTenant,
  errorPaths,
  isoMillis,
  newInstance,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
  uuidShape,
} from '../../test/harness.ts';
import { applyFormation } from '../formation/operations.ts';

/** PDT records: /pdts/{pdtName}, /pdts/{pdtName}/{pdtId} and /pdts/{pdtName}/{pdtId}/patients. */

const app = await startApp();

const recordKeys = ['createdAt', 'deleted', 'fullValue', 'id', 'jsonBody', 'pdtName', 'updatedAt'];
const systemKeys = [
  'created_at',
  'created_by',
  'created_by_name',
  'external_guid',
  'external_id',
  'id',
  'source_id',
  'source_name',
  'source_type',
  'updated_at',
  'updated_by',
  'updated_by_name',
];

const caregiverFields = [
  'pdtf-first-name',
  'pdtf-last-name',
  'pdtf-email',
  'pdtf-phone',
  'pdtf-age',
  'pdtf-kind',
  'pdtf-since',
  'pdtf-notes',
];

const pdts: NonNullable<Formation['pdts']> = [
  {
    name: 'caregiver',
    title: 'Caregiver',
    contactable: true,
    fields: [
      { name: 'pdtf-first-name', title: 'First name', type: 'text', required: true },
      { name: 'pdtf-last-name', title: 'Last name', type: 'text', required: true },
      { name: 'pdtf-email', type: 'email' },
      { name: 'pdtf-phone', type: 'phone' },
      { name: 'pdtf-age', type: 'integer' },
      { name: 'pdtf-kind', type: 'select', options: ['FAMILY', 'FRIEND'] },
      { name: 'pdtf-since', type: 'date' },
      { name: 'pdtf-notes', type: 'object' },
    ],
  },
  { name: 'physician', title: 'Physician', contactable: false, fields: [{ name: 'pdtf-npi', type: 'TEXT', required: true }] },
];

const formation = () => testFormation({ pdts });

const ann = {
  'pdtf-first-name': 'Ann',
  'pdtf-last-name': 'Lee',
  'pdtf-email': 'ann.lee@example.org',
  'pdtf-phone': '+14155550123',
};

async function tenant(): Promise<TestTenant> {
  return createTestTenant(app, formation());
}

async function createRecord(t: TestTenant, body: Record<string, unknown> = ann, pdtName = 'caregiver') {
  const response = await t.api.post(`${t.base}/pdts/${pdtName}`, body);
  assert.equal(response.status, 201, response.text);
  return response.body;
}

async function addContact(t: TestTenant, patientId: string, body: Record<string, unknown>) {
  const response = await t.api.post(`${t.base}/patients/${patientId}/contacts`, body);
  assert.equal(response.status, 200, response.text);
  return response.body as { id: string };
}

/** Bodies a create must reject, with the path the error names. */
const badBodies: [string, Record<string, unknown>, string][] = [
  ['a missing required field', { 'pdtf-first-name': 'Ann' }, 'body.pdtf-last-name'],
  ['a blank required field', { ...ann, 'pdtf-last-name': '  ' }, 'body.pdtf-last-name'],
  ['a null required field', { ...ann, 'pdtf-first-name': null }, 'body.pdtf-first-name'],
  ['a number for text (not coerced)', { ...ann, 'pdtf-first-name': 5 }, 'body.pdtf-first-name'],
  ['a string for an integer (not coerced)', { ...ann, 'pdtf-age': '42' }, 'body.pdtf-age'],
  ['a fraction for an integer', { ...ann, 'pdtf-age': 4.2 }, 'body.pdtf-age'],
  ['a bad email', { ...ann, 'pdtf-email': 'ann@' }, 'body.pdtf-email'],
  ['a phone with the national leading zero', { ...ann, 'pdtf-phone': '+4402079460000' }, 'body.pdtf-phone'],
  ['a select value outside its options', { ...ann, 'pdtf-kind': 'ENEMY' }, 'body.pdtf-kind'],
  ['a date that does not exist', { ...ann, 'pdtf-since': '2021-02-30' }, 'body.pdtf-since'],
  ['a list for an object', { ...ann, 'pdtf-notes': ['a'] }, 'body.pdtf-notes'],
];

describe('POST /pdts/{pdtName}', () => {
  test('creates a record with the production key set, jsonBody and fullValue', async () => {
    const t = await tenant();
    const response = await t.api.post(`${t.base}/pdts/caregiver`, { ...ann, 'pdtf-age': 42, 'pdtf-kind': 'FAMILY' });
    assert.equal(response.status, 201, response.text);
    const record = response.body;
    assert.deepEqual(Object.keys(record).sort(), recordKeys);
    assert.match(record.id, uuidShape);
    assert.match(record.createdAt, isoMillis);
    assert.match(record.updatedAt, isoMillis);
    assert.equal(record.deleted, false);
    assert.equal(record.pdtName, 'caregiver');
    // prod: the values joined by spaces in the order of their field names.
    assert.equal(record.fullValue, '42 ann.lee@example.org Ann FAMILY Lee +14155550123');
    const body = record.jsonBody;
    assert.deepEqual(Object.keys(body).sort(), [...systemKeys, ...caregiverFields].sort());
    assert.equal(body.id, record.id);
    assert.match(body.external_guid, uuidShape);
    assert.equal(body.created_at, record.createdAt);
    assert.equal(body.updated_at, record.updatedAt);
    assert.equal(body.created_by, t.adminClient.id);
    assert.equal(body.created_by_name, `API_CLIENT:${t.adminClient.name}`);
    assert.equal(body.updated_by_name, `API_CLIENT:${t.adminClient.name}`);
    assert.equal(body['pdtf-first-name'], 'Ann');
    assert.equal(body['pdtf-age'], 42);
    assert.equal(body['pdtf-since'], null, 'an unset field is null');
    assert.equal(body['pdtf-notes'], null);

    const read = await t.api.get(`${t.base}/pdts/caregiver/${record.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, record);
  });

  test('objects and lists stay out of fullValue; a type written in upper case validates', async () => {
    const t = await tenant();
    const record = await createRecord(t, { ...ann, 'pdtf-notes': { allergies: 'none' } });
    assert.equal(record.fullValue, 'ann.lee@example.org Ann Lee +14155550123');
    assert.deepEqual(record.jsonBody['pdtf-notes'], { allergies: 'none' });
    const physician = await createRecord(t, { 'pdtf-npi': '1234567890' }, 'physician');
    assert.equal(physician.fullValue, '1234567890');
    const bad = await t.api.post(`${t.base}/pdts/physician`, { 'pdtf-npi': 1234567890 });
    assertValidation(bad, 'body.pdtf-npi');
  });

  test('values under jsonBody or values are read; unknown and read-only keys are ignored', async () => {
    const t = await tenant();
    const first = await createRecord(t);
    // A client sends back a record it has read, with new values.
    const resent = await t.api.post(`${t.base}/pdts/caregiver`, {
      ...first,
      jsonBody: { ...first.jsonBody, 'pdtf-first-name': 'Bea', 'pdtf-unknown': 'x' },
    });
    assert.equal(resent.status, 201, resent.text);
    assert.notEqual(resent.body.id, first.id, 'a new id, not the one sent');
    assert.equal(resent.body.jsonBody['pdtf-first-name'], 'Bea');
    assert.equal(resent.body.jsonBody['pdtf-last-name'], 'Lee');
    assert.notEqual(resent.body.jsonBody.external_guid, first.jsonBody.external_guid);
    assert.equal(resent.body.deleted, false);
    assert.equal(Object.hasOwn(resent.body.jsonBody, 'pdtf-unknown'), false);

    const viaValues = await t.api.post(`${t.base}/pdts/caregiver`, {
      values: { 'pdtf-first-name': 'Cy', 'pdtf-last-name': 'Doe' },
      favouriteColour: 'blue',
      deleted: true,
    });
    assert.equal(viaValues.status, 201, viaValues.text);
    assert.equal(viaValues.body.fullValue, 'Cy Doe');
    assert.equal(viaValues.body.deleted, false);
  });

  test('400 for values that do not fit the type, naming every field', async () => {
    const t = await tenant();
    for (const [label, body, path] of badBodies) {
      assertValidation(await t.api.post(`${t.base}/pdts/caregiver`, body), path, label);
    }
    const several = await t.api.post(`${t.base}/pdts/caregiver`, { 'pdtf-age': 'old' });
    assertCode(several, 400, 'VALIDATION_ERROR');
    assert.deepEqual(errorPaths(several).sort(), ['body.pdtf-age', 'body.pdtf-first-name', 'body.pdtf-last-name']);
    for (const body of ['[1]', '"text"']) {
      const response = await t.api.request('POST', `${t.base}/pdts/caregiver`, body, { 'content-type': 'application/json' });
      assertCode(response, 400, 'VALIDATION_ERROR', body);
    }
    assert.equal((await t.api.get(`${t.base}/pdts/caregiver`)).body.records.metaInfo.totalElements, 0, 'nothing stored');
  });

  test('404 PDT_NOT_FOUND for a type not in the current formation; 401; 403 without PDT_UPDATE', async () => {
    const t = await tenant();
    assertCode(await t.api.post(`${t.base}/pdts/nurse`, ann), 404, 'PDT_NOT_FOUND');
    assertCode(await t.anonymous.post(`${t.base}/pdts/caregiver`, ann), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['PDT_READ']);
    assertCode(await reader.post(`${t.base}/pdts/caregiver`, ann), 403, 'ACCESS_DENIED');
    assertCode(await reader.post(`${t.base}/pdts/caregiver`, { 'pdtf-age': 'x' }), 403, 'ACCESS_DENIED', 'bad input');
    const writer = await t.apiWith(['PDT_UPDATE']);
    assert.equal((await writer.post(`${t.base}/pdts/caregiver`, ann)).status, 201);
  });

  test('the create is in the audit log', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const events = await auditOf(t, { entityType: 'PDT_RECORD', entityId: record.id });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.action, 'PDT_RECORD_CREATED');
    assert.equal(events[0]!.entityType, 'PDT_RECORD');
    assert.deepEqual(events[0]!.changedFields?.sort(), Object.keys(ann).sort());
  });
});

describe('GET /pdts/{pdtName}', () => {
  test('an empty type: lastUpdatedAt null and an empty page', async () => {
    const t = await tenant();
    const response = await t.api.get(`${t.base}/pdts/caregiver`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, {
      pdtName: 'caregiver',
      lastUpdatedAt: null,
      records: {
        data: [],
        metaInfo: {
          page: 0,
          pageSize: 20,
          totalElements: 0,
          numberOfElements: 0,
          totalPages: 0,
          firstPage: true,
          lastPage: true,
        },
      },
    });
  });

  test("lists the type's records in creation order, paged, with lastUpdatedAt", async () => {
    const t = await tenant();
    const created = [];
    for (const name of ['Ann', 'Bea', 'Cy']) created.push(await createRecord(t, { ...ann, 'pdtf-first-name': name }));
    await createRecord(t, { 'pdtf-npi': '1' }, 'physician');
    const all = await t.api.get(`${t.base}/pdts/caregiver`);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(
      all.body.records.data.map((r: { id: string }) => r.id),
      created.map((r) => r.id),
    );
    assert.deepEqual(all.body.records.data[0], created[0]);
    assert.equal(all.body.lastUpdatedAt, created[2].updatedAt);

    const page = await t.api.get(`${t.base}/pdts/caregiver?page=1&size=2`);
    assert.deepEqual(
      page.body.records.data.map((r: { id: string }) => r.id),
      [created[2].id],
    );
    assert.deepEqual(page.body.records.metaInfo, {
      page: 1,
      pageSize: 2,
      totalElements: 3,
      numberOfElements: 1,
      totalPages: 2,
      firstPage: false,
      lastPage: true,
    });

    // lastUpdatedAt follows the latest change, a PATCH of the oldest record included.
    const patched = await t.api.patch(`${t.base}/pdts/caregiver/${created[0].id}`, { 'pdtf-age': 30 });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((await t.api.get(`${t.base}/pdts/caregiver`)).body.lastUpdatedAt, patched.body.updatedAt);

    const byUpdate = await t.api.get(`${t.base}/pdts/caregiver?sort=updatedAt,desc`);
    assert.equal(byUpdate.body.records.data[0].id, created[0].id);
    const newest = await t.api.get(`${t.base}/pdts/caregiver?sort=createdAt,desc`);
    assert.deepEqual(
      newest.body.records.data.map((r: { id: string }) => r.id),
      created.map((r) => r.id).reverse(),
    );
  });

  test('search matches a substring of fullValue in any case', async () => {
    const t = await tenant();
    const a = await createRecord(t);
    const b = await createRecord(t, { 'pdtf-first-name': 'Bob', 'pdtf-last-name': 'Stone', 'pdtf-email': 'bob@stone.net' });
    const ids = async (query: string) =>
      (await t.api.get(`${t.base}/pdts/caregiver?search=${encodeURIComponent(query)}`)).body.records.data.map(
        (r: { id: string }) => r.id,
      );
    assert.deepEqual(await ids('ANN.LEE@'), [a.id]);
    assert.deepEqual(await ids('stone'), [b.id]);
    assert.deepEqual(await ids('4155550'), [a.id]);
    assert.deepEqual(await ids('o'), [a.id, b.id]);
    assert.deepEqual(await ids('%'), [], 'wildcards are literal');
    assert.deepEqual(await ids('nobody'), []);
    assert.deepEqual(await ids(''), [a.id, b.id], 'an empty search does not filter');
  });

  test('deleted records are listed only with showDeleted, in any case', async () => {
    const t = await tenant();
    const kept = await createRecord(t);
    const gone = await createRecord(t, { ...ann, 'pdtf-first-name': 'Gone' });
    const deleted = await t.api.delete(`${t.base}/pdts/caregiver/${gone.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    const ids = async (query: string) =>
      (await t.api.get(`${t.base}/pdts/caregiver${query}`)).body.records.data.map((r: { id: string }) => r.id);
    assert.deepEqual(await ids(''), [kept.id]);
    assert.deepEqual(await ids('?showDeleted=false'), [kept.id]);
    assert.deepEqual(await ids('?showDeleted=true'), [kept.id, gone.id]);
    assert.deepEqual(await ids('?showDeleted=TRUE'), [kept.id, gone.id]);
    assert.deepEqual(await ids('?showDeleted=True&search=gone'), [gone.id]);
    // A deletion is the latest change to the type.
    assert.equal((await t.api.get(`${t.base}/pdts/caregiver`)).body.lastUpdatedAt, deleted.body.updatedAt);
  });

  test('400 for bad paging, sort or flags; unknown parameters are ignored', async () => {
    const t = await tenant();
    await createRecord(t);
    assertCode(await t.api.get(`${t.base}/pdts/caregiver?size=0`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver?size=1001`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver?page=-1`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver?page=abc`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver?showDeleted=maybe`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver?sort=fullValue,asc`), 400, 'INVALID_SORT');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver?sort=createdAt,up`), 400, 'INVALID_SORT');
    const ignored = await t.api.get(`${t.base}/pdts/caregiver?page=0&colour=blue`);
    assert.equal(ignored.status, 200, ignored.text);
    assert.equal(ignored.body.records.data.length, 1);
  });

  test('404 PDT_NOT_FOUND; 401; 403 without PDT_READ', async () => {
    const t = await tenant();
    assertCode(await t.api.get(`${t.base}/pdts/nurse`), 404, 'PDT_NOT_FOUND');
    assertCode(await t.anonymous.get(`${t.base}/pdts/caregiver`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const writer = await t.apiWith(['PDT_UPDATE']);
    assertCode(await writer.get(`${t.base}/pdts/caregiver`), 403, 'ACCESS_DENIED');
    const reader = await t.apiWith(['PDT_READ']);
    assert.equal((await reader.get(`${t.base}/pdts/caregiver`)).status, 200);
  });

  test('a type removed from the formation answers 404 PDT_NOT_FOUND on every route', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const current = (await t.api.get(`${t.base}/formations/current`)).body.formation as Formation;
    assert.equal((await t.api.put(`${t.base}/formations/draft`, { ...current, pdts: [pdts[1]!] })).status, 200);
    assert.equal((await t.api.post(`${t.base}/formations/draft/publish`)).status, 200);
    const base = `${t.base}/pdts/caregiver`;
    assertCode(await t.api.get(base), 404, 'PDT_NOT_FOUND', 'list');
    assertCode(await t.api.post(base, ann), 404, 'PDT_NOT_FOUND', 'create');
    assertCode(await t.api.get(`${base}/${record.id}`), 404, 'PDT_NOT_FOUND', 'read');
    assertCode(await t.api.patch(`${base}/${record.id}`, {}), 404, 'PDT_NOT_FOUND', 'patch');
    assertCode(await t.api.delete(`${base}/${record.id}`), 404, 'PDT_NOT_FOUND', 'delete');
    assertCode(await t.api.get(`${base}/${record.id}/patients`), 404, 'PDT_NOT_FOUND', 'patients');
  });
});

describe('GET /pdts/{pdtName}/{pdtId}', () => {
  test('404 for unknown ids and ids of another type; 400 for a malformed id; 401; 403', async () => {
    const t = await tenant();
    const caregiver = await createRecord(t);
    const physician = await createRecord(t, { 'pdtf-npi': '1' }, 'physician');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver/${randomUUID()}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver/${physician.id}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/pdts/physician/${caregiver.id}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver/not-a-uuid`), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.get(`${t.base}/pdts/caregiver/${caregiver.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const denied = await t.apiWith(['PDT_UPDATE']);
    assertCode(await denied.get(`${t.base}/pdts/caregiver/${caregiver.id}`), 403, 'ACCESS_DENIED');
  });
});

describe('PATCH /pdts/{pdtName}/{pdtId}', () => {
  test('changes the values given, keeps the others, and recomputes fullValue', async () => {
    const t = await tenant();
    const record = await createRecord(t, { ...ann, 'pdtf-age': 40 });
    const response = await t.api.patch(`${t.base}/pdts/caregiver/${record.id}`, { 'pdtf-last-name': 'Moss', 'pdtf-age': null });
    assert.equal(response.status, 200, response.text);
    const updated = response.body;
    assert.equal(updated.id, record.id);
    assert.equal(updated.createdAt, record.createdAt);
    assert.ok(updated.updatedAt >= record.updatedAt);
    assert.equal(updated.jsonBody['pdtf-last-name'], 'Moss');
    assert.equal(updated.jsonBody['pdtf-first-name'], 'Ann', 'kept');
    assert.equal(updated.jsonBody['pdtf-age'], null, 'null clears');
    assert.equal(updated.jsonBody.external_guid, record.jsonBody.external_guid);
    assert.equal(updated.fullValue, 'ann.lee@example.org Ann Moss +14155550123');
    assert.deepEqual((await t.api.get(`${t.base}/pdts/caregiver/${record.id}`)).body, updated);
  });

  test('accepts a whole record sent back; unknown and read-only keys are ignored', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const response = await t.api.patch(`${t.base}/pdts/caregiver/${record.id}`, {
      ...record,
      id: randomUUID(),
      deleted: true,
      fullValue: 'forged',
      jsonBody: { ...record.jsonBody, 'pdtf-kind': 'FRIEND', external_guid: randomUUID() },
      colour: 'blue',
    });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.id, record.id);
    assert.equal(response.body.deleted, false);
    assert.equal(response.body.jsonBody['pdtf-kind'], 'FRIEND');
    assert.equal(response.body.jsonBody.external_guid, record.jsonBody.external_guid);
    assert.equal(response.body.fullValue, 'ann.lee@example.org Ann FRIEND Lee +14155550123');
  });

  test('400 for values that do not fit, or clearing a required field; the record is unchanged', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const url = `${t.base}/pdts/caregiver/${record.id}`;
    assertValidation(await t.api.patch(url, { 'pdtf-age': '42' }), 'body.pdtf-age');
    assertValidation(await t.api.patch(url, { 'pdtf-email': 'nope' }), 'body.pdtf-email');
    assertValidation(await t.api.patch(url, { 'pdtf-first-name': null }), 'body.pdtf-first-name');
    assertValidation(await t.api.patch(url, { 'pdtf-last-name': '' }), 'body.pdtf-last-name');
    assertValidation(await t.api.patch(url, { 'pdtf-kind': ['FAMILY'] }), 'body.pdtf-kind');
    assertCode(await t.api.request('PATCH', url, '[]', { 'content-type': 'application/json' }), 400, 'VALIDATION_ERROR');
    assert.deepEqual((await t.api.get(url)).body, record);
  });

  test('a deleted record can no longer change (400)', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const deleted = (await t.api.delete(`${t.base}/pdts/caregiver/${record.id}`)).body;
    assertCode(await t.api.patch(`${t.base}/pdts/caregiver/${record.id}`, { 'pdtf-age': 1 }), 400, 'BAD_REQUEST');
    assert.deepEqual((await t.api.get(`${t.base}/pdts/caregiver/${record.id}`)).body, deleted);
  });

  test('404 for unknown ids and ids of another type; 400 for a malformed id; 401; 403 without PDT_UPDATE', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const physician = await createRecord(t, { 'pdtf-npi': '1' }, 'physician');
    assertCode(await t.api.patch(`${t.base}/pdts/caregiver/${randomUUID()}`, {}), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.patch(`${t.base}/pdts/caregiver/${physician.id}`, {}), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.patch(`${t.base}/pdts/caregiver/123`, {}), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.patch(`${t.base}/pdts/caregiver/${record.id}`, {}), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['PDT_READ']);
    assertCode(await reader.patch(`${t.base}/pdts/caregiver/${record.id}`, { 'pdtf-age': 1 }), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(`${t.base}/pdts/caregiver/${record.id}`)).body, record);
  });

  test('the update is in the audit log with the fields it touched', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    await t.api.patch(`${t.base}/pdts/caregiver/${record.id}`, { 'pdtf-age': 3, colour: 'blue' });
    const events = await auditOf(t, { entityType: 'PDT_RECORD', entityId: record.id });
    assert.deepEqual(
      events.map((e) => e.action),
      ['PDT_RECORD_UPDATED', 'PDT_RECORD_CREATED'],
    );
    assert.deepEqual(events[0]!.changedFields, ['pdtf-age']);
  });
});

describe('DELETE /pdts/{pdtName}/{pdtId}', () => {
  test('soft-deletes: 200 with the record, still readable, audited once', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const response = await t.api.delete(`${t.base}/pdts/caregiver/${record.id}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), recordKeys);
    assert.equal(response.body.id, record.id);
    assert.equal(response.body.deleted, true);
    assert.deepEqual(response.body.jsonBody['pdtf-first-name'], 'Ann');
    const read = await t.api.get(`${t.base}/pdts/caregiver/${record.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(read.body, response.body);

    // Deleting again answers the record and changes nothing.
    const again = await t.api.delete(`${t.base}/pdts/caregiver/${record.id}`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, response.body);
    const events = await auditOf(t, { entityType: 'PDT_RECORD', entityId: record.id });
    assert.deepEqual(
      events.map((e) => e.action),
      ['PDT_RECORD_DELETED', 'PDT_RECORD_CREATED'],
    );
  });

  test('404 for unknown ids and ids of another type; 400 for a malformed id; 401; 403 without PDT_UPDATE', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const physician = await createRecord(t, { 'pdtf-npi': '1' }, 'physician');
    assertCode(await t.api.delete(`${t.base}/pdts/caregiver/${randomUUID()}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.delete(`${t.base}/pdts/caregiver/${physician.id}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.delete(`${t.base}/pdts/caregiver/x`), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.delete(`${t.base}/pdts/caregiver/${record.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['PDT_READ']);
    assertCode(await reader.delete(`${t.base}/pdts/caregiver/${record.id}`), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${t.base}/pdts/caregiver/${record.id}`)).body.deleted, false);
    assert.equal((await t.api.get(`${t.base}/pdts/physician/${physician.id}`)).body.deleted, false);
  });
});

describe('GET /pdts/{pdtName}/{pdtId}/patients', () => {
  test('the patients linked to the record through contacts, as full patient objects, paged', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const other = await createRecord(t, { ...ann, 'pdtf-first-name': 'Other' });
    const first = await createPatient(t, { firstName: 'First', lastName: 'Ient' });
    const second = await createPatient(t, { firstName: 'Second', lastName: 'Ient' });
    const unrelated = await createPatient(t, { firstName: 'Unrelated', lastName: 'Ient' });
    await addContact(t, first.id, { name: 'Ann', pdtRecordId: record.id });
    // Two contacts of one patient backed by the same record count once; inactive ones count.
    await addContact(t, first.id, { name: 'Ann again', pdtRecordId: record.id, active: false });
    await addContact(t, second.id, { name: 'Ann', pdtRecordId: record.id, active: false });
    await addContact(t, unrelated.id, { name: 'Other', pdtRecordId: other.id });
    await addContact(t, unrelated.id, { name: 'No record' });

    const response = await t.api.get(`${t.base}/pdts/caregiver/${record.id}/patients`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.totalElements, 2);
    assert.equal(response.body.number, 0);
    assert.equal(response.body.size, 20);
    assert.deepEqual(
      response.body.content.map((p: { id: string }) => p.id),
      [first.id, second.id],
    );
    const full = (await t.api.get(`${t.base}/patients/${first.id}`)).body;
    assert.deepEqual(response.body.content[0], full, 'a full patient object');

    const page = await t.api.get(`${t.base}/pdts/caregiver/${record.id}/patients?page=1&size=1`);
    assert.deepEqual(
      page.body.content.map((p: { id: string }) => p.id),
      [second.id],
    );
    assert.equal(page.body.totalPages, 2);
    assert.equal(page.body.last, true);
    assert.equal(page.body.first, false);

    const none = await createRecord(t, { ...ann, 'pdtf-first-name': 'Nobody' });
    const empty = await t.api.get(`${t.base}/pdts/caregiver/${none.id}/patients`);
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.empty, true);
    assert.equal(empty.body.totalElements, 0);

    // A deleted record still answers its patients.
    await t.api.delete(`${t.base}/pdts/caregiver/${record.id}`);
    assert.equal((await t.api.get(`${t.base}/pdts/caregiver/${record.id}/patients`)).body.totalElements, 2);
  });

  test('404 for unknown ids and ids of another type; 400 for bad input; 401; 403 without PDT_READ', async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const physician = await createRecord(t, { 'pdtf-npi': '1' }, 'physician');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver/${randomUUID()}/patients`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver/${physician.id}/patients`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver/nope/patients`), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.get(`${t.base}/pdts/caregiver/${record.id}/patients?size=0`), 400, 'VALIDATION_ERROR');
    assertCode(await t.anonymous.get(`${t.base}/pdts/caregiver/${record.id}/patients`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const writer = await t.apiWith(['PDT_UPDATE']);
    assertCode(await writer.get(`${t.base}/pdts/caregiver/${record.id}/patients`), 403, 'ACCESS_DENIED');
  });
});

describe('tenant and instance isolation', () => {
  test("a token for tenant A is 403 on every PDT route of tenant B, and B's data is untouched", async () => {
    const a = await tenant();
    const b = await tenant();
    const record = await createRecord(b);
    const url = `${b.base}/pdts/caregiver`;
    const attempts: [string, () => Promise<Response>][] = [
      ['list', () => a.api.get(url)],
      ['create', () => a.api.post(url, ann)],
      ['read', () => a.api.get(`${url}/${record.id}`)],
      ['patch', () => a.api.patch(`${url}/${record.id}`, { 'pdtf-age': 1 })],
      ['delete', () => a.api.delete(`${url}/${record.id}`)],
      ['patients', () => a.api.get(`${url}/${record.id}/patients`)],
    ];
    for (const [label, attempt] of attempts) assertCode(await attempt(), 403, 'TENANT_ACCESS_DENIED', label);
    assert.deepEqual((await b.api.get(`${url}/${record.id}`)).body, record);
    assert.equal((await b.api.get(url)).body.records.metaInfo.totalElements, 1);
  });

  test("tenant B's records do not exist on tenant A's paths", async () => {
    const a = await tenant();
    const b = await tenant();
    const mine = await createRecord(a);
    const theirs = await createRecord(b);
    const url = `${a.base}/pdts/caregiver`;
    assertCode(await a.api.get(`${url}/${theirs.id}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await a.api.patch(`${url}/${theirs.id}`, { 'pdtf-age': 1 }), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await a.api.delete(`${url}/${theirs.id}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await a.api.get(`${url}/${theirs.id}/patients`), 404, 'PDT_RECORD_NOT_FOUND');
    const list = await a.api.get(url);
    assert.deepEqual(
      list.body.records.data.map((r: { id: string }) => r.id),
      [mine.id],
    );
    assert.deepEqual((await b.api.get(`${b.base}/pdts/caregiver/${theirs.id}`)).body, theirs);
  });

  test("a second instance of the same tenant does not see the first's records", async () => {
    const t = await tenant();
    const record = await createRecord(t);
    const live = await newInstance(app, t.tenant, 'live');
    await applyFormation(systemContext(app.services, t.tenant, live), formation());
    const liveClient = await t.clientWithRole('admin', { ...live, currentFormationVersion: 1 });
    const liveApi = new Api(app.server, liveClient.token);
    const url = `/${t.tenant.name}/live/pdts/caregiver`;
    const empty = await liveApi.get(url);
    assert.equal(empty.status, 200, empty.text);
    assert.equal(empty.body.lastUpdatedAt, null);
    assert.equal(empty.body.records.metaInfo.totalElements, 0);
    assertCode(await liveApi.get(`${url}/${record.id}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await liveApi.patch(`${url}/${record.id}`, {}), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await liveApi.delete(`${url}/${record.id}`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await liveApi.get(`${url}/${record.id}/patients`), 404, 'PDT_RECORD_NOT_FOUND');
    assertCode(await t.api.get(url), 403, 'INSTANCE_ACCESS_DENIED');
    assert.equal((await t.api.get(`${t.base}/pdts/caregiver/${record.id}`)).body.deleted, false);
  });
});
