import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { v5 as uuidv5 } from 'uuid';
import { systemContext } from '../../http/context.ts';
import { cdtRecordView } from '../../records/cdt-view.ts';
import { Records } from '../../records/handle.ts';
import { listRecordPage } from '../../records/list.ts';
import { CDT_ID_NAMESPACE } from '../../records/store.ts';
import { systemType } from '../../records/types.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createPatient,
  createTestTenant,
  isoMillis,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
  uuidShape,
} from '../../test/harness.ts';
import { write } from '../../work/write.ts';

/** CDT record routes: POST, GET, PATCH and DELETE of one record, the bulk PATCH, and tenancy. */

const app = await startApp();

const vitalsFields = ['cdtf-systolic', 'cdtf-diastolic', 'cdtf-position', 'cdtf-note'];
const cdtFormation = () =>
  testFormation({
    cdts: [
      {
        name: 'vitals',
        title: 'Vitals',
        type: 'MULTI_RECORD',
        fields: [
          { name: 'cdtf-systolic', type: 'integer', required: true },
          { name: 'cdtf-diastolic', type: 'integer' },
          { name: 'cdtf-position', type: 'select', options: ['SITTING', 'STANDING'] },
          { name: 'cdtf-note', type: 'text' },
        ],
      },
      {
        name: 'social-needs',
        title: 'Social needs',
        type: 'SINGLE_RECORD',
        fields: [
          { name: 'cdtf-housing', type: 'boolean' },
          { name: 'cdtf-notes', type: 'textarea' },
        ],
      },
    ],
  });

/** PROD-SHAPES "CDT record": the system keys of jsonBody, in production's order around the custom fields. */
const systemHead = [
  'external_guid',
  'created_at',
  'source_type',
  'external_id',
  'created_by_name',
  'created_by',
  'updated_by_name',
  'updated_at',
  'updated_by',
];
const systemTail = ['id', 'source_id', 'source_name'];

async function setup(): Promise<{ t: TestTenant; patientId: string; base: string }> {
  const t = await createTestTenant(app, cdtFormation());
  const patientId = (await createPatient(t)).id;
  return { t, patientId, base: `${t.base}/patients/${patientId}/cdts` };
}

async function createVitals(t: TestTenant, base: string, body: Record<string, unknown> = {}) {
  const response = await t.api.post(`${base}/vitals`, { 'cdtf-systolic': 120, ...body });
  assert.equal(response.status, 201, response.text);
  return response.body;
}

async function countRecords(t: TestTenant, base: string, cdtName = 'vitals'): Promise<number> {
  const response = await t.api.get(`${base}/${cdtName}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.totalElements;
}

describe('POST /patients/{id}/cdts/{cdtName}', () => {
  test('creates a record in the production shape', async () => {
    const { t, patientId, base } = await setup();
    const record = await createVitals(t, base, { 'cdtf-diastolic': 80 });
    assert.deepEqual(Object.keys(record), ['id', 'patientId', 'cdtId', 'version', 'jsonBody', 'cdtName']);
    assert.match(record.id, uuidShape);
    assert.equal(record.patientId, patientId);
    assert.equal(record.cdtName, 'vitals');
    assert.equal(record.cdtId, uuidv5(`${t.instance.id}/vitals`, CDT_ID_NAMESPACE));
    assert.equal(record.version, 1);
    assert.deepEqual(Object.keys(record.jsonBody), [...systemHead, ...vitalsFields, ...systemTail]);
    const body = record.jsonBody;
    assert.equal(body.id, record.id);
    assert.equal(body['cdtf-systolic'], 120);
    assert.equal(body['cdtf-diastolic'], 80);
    assert.equal(body['cdtf-position'], null, 'unset fields are null');
    assert.equal(body['cdtf-note'], null);
    assert.match(body.external_guid, uuidShape);
    assert.match(body.created_at, isoMillis);
    assert.equal(body.created_at, body.updated_at);
    assert.equal(body.created_by, t.adminClient.id);
    assert.equal(body.created_by_name, `API_CLIENT:${t.adminClient.name}`);
    assert.equal(body.updated_by_name, body.created_by_name);
    assert.equal(body.external_id, null);
    assert.equal(body.source_type, null);
    assert.equal(body.source_id, null);
    assert.equal(body.source_name, null);
    assert.deepEqual((await t.api.get(`${base}/vitals/${record.id}`)).body, record);
  });

  test('cdtId is stable per type; version follows the formation published last', async () => {
    const { t, patientId, base } = await setup();
    const first = await createVitals(t, base);
    const second = await createVitals(t, base, { 'cdtf-systolic': 130 });
    assert.equal(first.cdtId, second.cdtId);
    const other = (await createPatient(t)).id;
    const social = await t.api.post(`${t.base}/patients/${other}/cdts/social-needs`, { 'cdtf-housing': true });
    assert.equal(social.status, 201, social.text);
    assert.notEqual(social.body.cdtId, first.cdtId);
    // apiWith publishes a new formation version; records written after it carry it.
    await t.apiWith(['CDT_READ']);
    const later = await createVitals(t, base);
    assert.equal(later.version, 2);
    assert.equal(later.cdtId, first.cdtId);
    assert.equal((await t.api.get(`${base}/vitals/${first.id}`)).body.version, 1);
    assert.ok(patientId);
  });

  test('values may come under jsonBody; unknown and read-only keys are ignored', async () => {
    const { t, base } = await setup();
    const nested = await t.api.post(`${base}/vitals`, { jsonBody: { 'cdtf-systolic': 110, 'cdtf-note': 'calm' } });
    assert.equal(nested.status, 201, nested.text);
    assert.equal(nested.body.jsonBody['cdtf-systolic'], 110);
    assert.equal(nested.body.jsonBody['cdtf-note'], 'calm');
    // A record read back and posted again makes a new record with the same values.
    const copy = await t.api.post(`${base}/vitals`, { ...nested.body, unknownKey: 1, created_at: 'yesterday' });
    assert.equal(copy.status, 201, copy.text);
    assert.notEqual(copy.body.id, nested.body.id);
    assert.equal(copy.body.jsonBody['cdtf-note'], 'calm');
    assert.equal(copy.body.jsonBody.id, copy.body.id);
    assert.ok(!('unknownKey' in copy.body.jsonBody));
  });

  test('bad values are a 400 naming the field, and nothing is stored', async () => {
    const { t, base } = await setup();
    const cases: [string, unknown, string][] = [
      ['a string for an integer is not coerced', { 'cdtf-systolic': '120' }, 'body.cdtf-systolic'],
      ['a fraction for an integer', { 'cdtf-systolic': 120.5 }, 'body.cdtf-systolic'],
      ['a required field missing', { 'cdtf-note': 'x' }, 'body.cdtf-systolic'],
      ['a required field null', { 'cdtf-systolic': null }, 'body.cdtf-systolic'],
      ['an option not in the list', { 'cdtf-systolic': 1, 'cdtf-position': 'LYING' }, 'body.cdtf-position'],
      ['a number for a text', { 'cdtf-systolic': 1, 'cdtf-note': 5 }, 'body.cdtf-note'],
    ];
    for (const [label, body, path] of cases) assertValidation(await t.api.post(`${base}/vitals`, body), path, label);
    assertCode(await t.api.post(`${base}/vitals`, [1, 2]), 400, 'VALIDATION_ERROR', 'an array body');
    const text = await t.api.request('POST', `${base}/vitals`, '"text"', { 'content-type': 'application/json' });
    assertCode(text, 400, 'VALIDATION_ERROR', 'a string body');
    assert.equal(await countRecords(t, base), 0);
  });

  test('404 for an unknown type or patient, 400 for a malformed patient id', async () => {
    const { t, base } = await setup();
    const unknownType = await t.api.post(`${base}/not-a-type`, { 'cdtf-systolic': 1 });
    assertCode(unknownType, 404, 'CDT_NOT_FOUND');
    assert.equal(unknownType.body[0].details.cdtName, 'not-a-type');
    // System types of other areas are not reachable here.
    assertCode(await t.api.post(`${base}/_document_summary`, {}), 404, 'CDT_NOT_FOUND');
    assertCode(
      await t.api.post(`${t.base}/patients/${randomUUID()}/cdts/vitals`, { 'cdtf-systolic': 1 }),
      404,
      'PATIENT_NOT_FOUND',
    );
    assertValidation(await t.api.post(`${t.base}/patients/not-a-uuid/cdts/vitals`, { 'cdtf-systolic': 1 }), 'params.patientId');
  });

  test('401 without a token, 403 without CDT_UPDATE', async () => {
    const { t, base } = await setup();
    assertCode(await t.anonymous.post(`${base}/vitals`, { 'cdtf-systolic': 1 }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['CDT_READ']);
    const denied = await reader.post(`${base}/vitals`, { 'cdtf-systolic': 1 });
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'CDT_UPDATE');
    const nobody = new Api(app.server, (await t.clientWithRole('nothing')).token);
    assertCode(await nobody.post(`${base}/vitals`, { 'cdtf-systolic': 1 }), 403, 'ACCESS_DENIED');
    assert.equal(await countRecords(t, base), 0);
    const writer = await t.apiWith(['CDT_UPDATE']);
    assert.equal((await writer.post(`${base}/vitals`, { 'cdtf-systolic': 1 })).status, 201);
  });

  test('a SINGLE_RECORD type holds one record per patient: a second is 409 DUPLICATE_VALUE', async () => {
    const { t, patientId, base } = await setup();
    const first = await t.api.post(`${base}/social-needs`, { 'cdtf-housing': false });
    assert.equal(first.status, 201, first.text);
    const second = await t.api.post(`${base}/social-needs`, { 'cdtf-housing': true });
    assertCode(second, 409, 'DUPLICATE_VALUE');
    assert.equal(second.body[0].details.cdtRecordId, first.body.id);
    assert.equal(await countRecords(t, base, 'social-needs'), 1);
    // Another patient has their own; after a delete the patient may have one again.
    const other = (await createPatient(t)).id;
    assert.equal((await t.api.post(`${t.base}/patients/${other}/cdts/social-needs`, {})).status, 201);
    assert.equal((await t.api.delete(`${base}/social-needs/${first.body.id}`)).status, 200);
    assert.equal((await t.api.post(`${base}/social-needs`, { 'cdtf-housing': true })).status, 201);
    // Concurrent creates still leave one record.
    const third = (await createPatient(t)).id;
    const racing = await Promise.all(
      [1, 2, 3].map(() => t.api.post(`${t.base}/patients/${third}/cdts/social-needs`, { 'cdtf-housing': true })),
    );
    assert.deepEqual(racing.map((r) => r.status).sort(), [201, 409, 409]);
    assert.ok(patientId);
  });

  test('a create is audited as CDT_RECORD_CREATED with the fields it set', async () => {
    const { t, patientId, base } = await setup();
    const record = await createVitals(t, base, { 'cdtf-note': 'x' });
    const events = await auditOf(t, { patientId: patientId, entityType: 'CDT_RECORD' });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.action, 'CDT_RECORD_CREATED');
    assert.equal(events[0]!.entityType, 'CDT_RECORD');
    assert.equal(events[0]!.entityId, record.id);
    assert.deepEqual(events[0]!.changedFields?.sort(), ['cdtf-note', 'cdtf-systolic']);
  });
});

describe('GET /patients/{id}/cdts/{cdtName}/{recordId}', () => {
  test('reads a record; a missing one is 404 DT_RECORD_NOT_FOUND with its ids', async () => {
    const { t, patientId, base } = await setup();
    const record = await createVitals(t, base);
    const read = await t.api.get(`${base}/vitals/${record.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, record);
    const missingId = randomUUID();
    const missing = await t.api.get(`${base}/vitals/${missingId}`);
    assertCode(missing, 404, 'DT_RECORD_NOT_FOUND');
    assert.deepEqual(missing.body[0].details, { patientId, cdtRecordId: missingId, cdtName: 'vitals' });
    assert.equal(missing.body[0].componentType, 'CDT');
    // The record exists, but not as another type.
    assertCode(await t.api.get(`${base}/social-needs/${record.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await t.api.get(`${base}/nope/${record.id}`), 404, 'CDT_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/cdts/vitals/${record.id}`), 404, 'PATIENT_NOT_FOUND');
    assertValidation(await t.api.get(`${base}/vitals/not-a-uuid`), 'params.recordId');
  });

  test('a record of patient X is 404 under patient Y', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    const other = (await createPatient(t)).id;
    const otherBase = `${t.base}/patients/${other}/cdts`;
    assertCode(await t.api.get(`${otherBase}/vitals/${record.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await t.api.patch(`${otherBase}/vitals/${record.id}`, { 'cdtf-note': 'x' }), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await t.api.delete(`${otherBase}/vitals/${record.id}`), 404, 'DT_RECORD_NOT_FOUND');
    const bulk = await t.api.patch(`${otherBase}/vitals`, { rows: [{ id: record.id, jsonBody: { 'cdtf-note': 'x' } }] });
    assert.equal(bulk.body.rows[0].result.status, 404);
    assert.equal((await t.api.get(`${otherBase}/vitals`)).body.data.totalElements, 0);
    assert.deepEqual((await t.api.get(`${base}/vitals/${record.id}`)).body, record);
  });

  test('401 without a token, 403 without CDT_READ', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    assertCode(await t.anonymous.get(`${base}/vitals/${record.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const writer = await t.apiWith(['CDT_UPDATE']);
    const denied = await writer.get(`${base}/vitals/${record.id}`);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'CDT_READ');
  });
});

describe('PATCH /patients/{id}/cdts/{cdtName}/{recordId}', () => {
  test('changes the fields present; others keep their values; null clears one', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base, { 'cdtf-diastolic': 80, 'cdtf-note': 'first' });
    const patched = await t.api.patch(`${base}/vitals/${record.id}`, { 'cdtf-diastolic': 85, 'cdtf-note': null });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.id, record.id);
    assert.equal(patched.body.jsonBody['cdtf-systolic'], 120);
    assert.equal(patched.body.jsonBody['cdtf-diastolic'], 85);
    assert.equal(patched.body.jsonBody['cdtf-note'], null);
    assert.deepEqual(Object.keys(patched.body.jsonBody), Object.keys(record.jsonBody));
    assert.equal(patched.body.jsonBody.created_at, record.jsonBody.created_at);
    assert.equal(patched.body.jsonBody.external_guid, record.jsonBody.external_guid);
    assert.ok(patched.body.jsonBody.updated_at >= record.jsonBody.updated_at);
    assert.deepEqual((await t.api.get(`${base}/vitals/${record.id}`)).body, patched.body);
    // Under jsonBody, as read.
    const nested = await t.api.patch(`${base}/vitals/${record.id}`, { jsonBody: { 'cdtf-position': 'SITTING' } });
    assert.equal(nested.body.jsonBody['cdtf-position'], 'SITTING');
    assert.equal(nested.body.jsonBody['cdtf-diastolic'], 85);
  });

  test('a record read and sent back changes nothing; version moves to the current formation', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base, { 'cdtf-note': 'keep' });
    await t.apiWith(['CDT_READ']);
    const sentBack = await t.api.patch(`${base}/vitals/${record.id}`, record);
    assert.equal(sentBack.status, 200, sentBack.text);
    const { updated_at: _a, ...before } = record.jsonBody;
    const { updated_at: _b, ...after } = sentBack.body.jsonBody;
    assert.deepEqual(after, before);
    assert.equal(sentBack.body.version, 2);
  });

  test('bad values are a 400 and leave the record as it was', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    assertValidation(await t.api.patch(`${base}/vitals/${record.id}`, { 'cdtf-systolic': 'high' }), 'body.cdtf-systolic');
    assertValidation(await t.api.patch(`${base}/vitals/${record.id}`, { 'cdtf-systolic': null }), 'body.cdtf-systolic');
    assertValidation(await t.api.patch(`${base}/vitals/${record.id}`, { 'cdtf-position': 'UPSIDE_DOWN' }), 'body.cdtf-position');
    assertCode(await t.api.patch(`${base}/vitals/${record.id}`, [1]), 400, 'VALIDATION_ERROR');
    assert.deepEqual((await t.api.get(`${base}/vitals/${record.id}`)).body, record);
  });

  test('404 for a missing record, type or patient; 401; 403 without CDT_UPDATE', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    assertCode(await t.api.patch(`${base}/vitals/${randomUUID()}`, { 'cdtf-note': 'x' }), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await t.api.patch(`${base}/nope/${record.id}`, { 'cdtf-note': 'x' }), 404, 'CDT_NOT_FOUND');
    const noPatient = `${t.base}/patients/${randomUUID()}/cdts/vitals/${record.id}`;
    assertCode(await t.api.patch(noPatient, { 'cdtf-note': 'x' }), 404, 'PATIENT_NOT_FOUND');
    assertValidation(await t.api.patch(`${base}/vitals/not-a-uuid`, {}), 'params.recordId');
    assertCode(await t.anonymous.patch(`${base}/vitals/${record.id}`, { 'cdtf-note': 'x' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['CDT_READ']);
    assertCode(await reader.patch(`${base}/vitals/${record.id}`, { 'cdtf-note': 'x' }), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${base}/vitals/${record.id}`)).body.jsonBody['cdtf-note'], null);
  });

  test('an update is audited as CDT_RECORD_UPDATED with the fields it changed', async () => {
    const { t, patientId, base } = await setup();
    const record = await createVitals(t, base);
    await t.api.patch(`${base}/vitals/${record.id}`, { 'cdtf-note': 'x', ignored: 1 });
    const events = await auditOf(t, { patientId: patientId, entityType: 'CDT_RECORD' });
    assert.deepEqual(
      events.map((e) => e.action),
      ['CDT_RECORD_UPDATED', 'CDT_RECORD_CREATED'],
    );
    assert.equal(events[0]!.entityId, record.id);
    assert.deepEqual(events[0]!.changedFields, ['cdtf-note']);
  });
});

describe('DELETE /patients/{id}/cdts/{cdtName}/{recordId}', () => {
  test('answers 200 with an empty body; the record is gone', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    const kept = await createVitals(t, base);
    const deleted = await t.api.delete(`${base}/vitals/${record.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.text, '');
    assertCode(await t.api.get(`${base}/vitals/${record.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await t.api.delete(`${base}/vitals/${record.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assert.equal(await countRecords(t, base), 1);
    assert.equal((await t.api.get(`${base}/vitals/${kept.id}`)).status, 200);
  });

  test('404 for an unknown type or patient; 400 for a bad id; 401; 403 without CDT_UPDATE', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    assertCode(await t.api.delete(`${base}/nope/${record.id}`), 404, 'CDT_NOT_FOUND');
    assertCode(await t.api.delete(`${t.base}/patients/${randomUUID()}/cdts/vitals/${record.id}`), 404, 'PATIENT_NOT_FOUND');
    assertValidation(await t.api.delete(`${base}/vitals/nope`), 'params.recordId');
    assertCode(await t.anonymous.delete(`${base}/vitals/${record.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['CDT_READ']);
    const denied = await reader.delete(`${base}/vitals/${record.id}`);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'CDT_UPDATE');
    assert.equal((await t.api.get(`${base}/vitals/${record.id}`)).status, 200);
  });

  test('a delete is audited as CDT_RECORD_DELETED; deleting the patient removes its records', async () => {
    const { t, patientId, base } = await setup();
    const record = await createVitals(t, base);
    await t.api.delete(`${base}/vitals/${record.id}`);
    const events = await auditOf(t, { patientId: patientId, entityType: 'CDT_RECORD' });
    assert.deepEqual(
      events.map((e) => [e.action, e.entityId]),
      [
        ['CDT_RECORD_DELETED', record.id],
        ['CDT_RECORD_CREATED', record.id],
      ],
    );
    const other = await createVitals(t, base);
    assert.equal((await t.api.delete(`${t.base}/patients/${patientId}`)).status, 200);
    const rows = await app.services.db.selectFrom('cdt_records').select('id').where('tenant_id', '=', t.tenant.id).execute();
    assert.deepEqual(rows, []);
    assert.ok(other);
  });
});

describe('PATCH /patients/{id}/cdts/{cdtName} (bulk)', () => {
  test('each row gets its own result; one bad row does not stop the good ones', async () => {
    const { t, base } = await setup();
    const a = await createVitals(t, base, { 'cdtf-note': 'a' });
    const b = await createVitals(t, base, { 'cdtf-note': 'b' });
    const c = await createVitals(t, base, { 'cdtf-note': 'c' });
    const missing = randomUUID();
    const rows = [
      { id: a.id, jsonBody: { 'cdtf-note': 'a2', 'cdtf-diastolic': 70 } },
      { id: b.id, jsonBody: { 'cdtf-systolic': 'high' } },
      { id: missing, jsonBody: { 'cdtf-note': 'x' } },
      { id: 'not-a-uuid', jsonBody: {} },
      { id: c.id, jsonBody: { 'cdtf-note': null } },
      { id: a.id, jsonBody: { 'cdtf-note': 'again' } },
    ];
    const response = await t.api.patch(`${base}/vitals`, { rows });
    assert.equal(response.status, 200, response.text);
    const results = response.body.rows;
    assert.equal(results.length, rows.length);
    assert.deepEqual(
      results.map((r: any) => r.id),
      rows.map((r) => r.id),
    );
    assert.deepEqual(results[0].jsonBody, rows[0]!.jsonBody, 'each row echoes the jsonBody sent');
    assert.deepEqual(
      results.map((r: any) => r.result.status),
      [200, 400, 404, 400, 200, 400],
    );
    // A written row's content is the updated record.
    assert.deepEqual(results[0].result.content, (await t.api.get(`${base}/vitals/${a.id}`)).body);
    assert.equal(results[0].result.content.jsonBody['cdtf-note'], 'a2');
    assert.equal(results[0].result.content.jsonBody['cdtf-diastolic'], 70);
    assert.equal(results[4].result.content.jsonBody['cdtf-note'], null);
    // A failed row's content is the error array.
    const [invalid] = results[1].result.content;
    assert.equal(invalid.errorCode, 'VALIDATION_ERROR');
    assert.equal(invalid.details.errors[0].path, 'body.rows.1.jsonBody.cdtf-systolic');
    assert.equal(results[2].result.content[0].errorCode, 'DT_RECORD_NOT_FOUND');
    assert.deepEqual(results[2].result.content[0].details, { patientId: a.patientId, cdtRecordId: missing, cdtName: 'vitals' });
    assert.equal(results[3].result.content[0].details.errors[0].path, 'body.rows.3.id');
    assert.equal(results[5].result.content[0].details.errors[0].message, 'is listed more than once');
    // The bad row was not written.
    assert.deepEqual((await t.api.get(`${base}/vitals/${b.id}`)).body, b);
  });

  test('an empty list answers no rows; a malformed body is a 400 for the whole request', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    const empty = await t.api.patch(`${base}/vitals`, { rows: [] });
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body, { rows: [] });
    assertValidation(await t.api.patch(`${base}/vitals`, { rows: 'x' }), 'body.rows');
    assertCode(await t.api.patch(`${base}/vitals`, {}), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.patch(`${base}/vitals`, { rows: [{ id: record.id, jsonBody: 'x' }] }), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.patch(`${base}/vitals`, { rows: [{ id: 5 }] }), 400, 'VALIDATION_ERROR');
    assert.deepEqual((await t.api.get(`${base}/vitals/${record.id}`)).body, record);
  });

  test('404 for an unknown type or patient; 401; 403 without CDT_UPDATE', async () => {
    const { t, base } = await setup();
    const record = await createVitals(t, base);
    const body = { rows: [{ id: record.id, jsonBody: { 'cdtf-note': 'x' } }] };
    assertCode(await t.api.patch(`${base}/nope`, body), 404, 'CDT_NOT_FOUND');
    assertCode(await t.api.patch(`${t.base}/patients/${randomUUID()}/cdts/vitals`, body), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.anonymous.patch(`${base}/vitals`, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['CDT_READ']);
    assertCode(await reader.patch(`${base}/vitals`, body), 403, 'ACCESS_DENIED');
    assert.deepEqual((await t.api.get(`${base}/vitals/${record.id}`)).body, record);
  });

  test('every written row is audited as CDT_RECORD_UPDATED; failed rows are not', async () => {
    const { t, patientId, base } = await setup();
    const a = await createVitals(t, base);
    const b = await createVitals(t, base);
    await t.api.patch(`${base}/vitals`, {
      rows: [
        { id: a.id, jsonBody: { 'cdtf-note': 'x' } },
        { id: b.id, jsonBody: { 'cdtf-systolic': 'bad' } },
      ],
    });
    const updates = (await auditOf(t, { patientId: patientId, entityType: 'CDT_RECORD' })).filter(
      (e) => e.action === 'CDT_RECORD_UPDATED',
    );
    assert.deepEqual(
      updates.map((e) => [e.entityId, e.changedFields]),
      [[a.id, ['cdtf-note']]],
    );
  });
});

describe('the generic store, for system types outside the formation', () => {
  test('stores a record with a source; the formation routes do not reach it', async () => {
    const { t, patientId, base } = await setup();
    const ctx = systemContext(app.services, t.tenant, t.instance);
    const source = { type: 'ENCOUNTER', id: randomUUID(), name: '__encounter__' };
    // A system type is a declaration; the kernel stores its records as CDT records.
    const summaries = await Records.system(
      ctx,
      systemType({
        name: '_document_summary',
        fields: () => [
          { name: 'type', type: 'text' },
          { name: 'files', type: 'object' },
        ],
      }),
    );
    const row = await write(ctx, (w) => summaries.create(w, { type: 'doc-type-others', files: null }, { patientId, source }));
    const view = cdtRecordView(row, ['type', 'files']);
    assert.equal(view.cdtName, '_document_summary');
    assert.equal(view.version, null);
    assert.equal(view.jsonBody.source_type, 'ENCOUNTER');
    assert.equal(view.jsonBody.source_id, source.id);
    assert.equal(view.jsonBody.source_name, '__encounter__');
    assert.equal(view.jsonBody.type, 'doc-type-others');
    assert.equal(view.jsonBody.files, null);
    assert.equal(view.jsonBody.created_by_name, 'SYSTEM:cli');
    assert.deepEqual(cdtRecordView((await summaries.find(app.services.db, row.id, { patientId }))!, ['type', 'files']), view);
    const page = await listRecordPage(app.services.db, ctx.scope, {
      cdtName: '_document_summary',
      patientId,
      paging: { page: 0, size: 20 },
      sort: [],
      sourceId: source.id,
    });
    assert.equal(page.total, 1);
    assertCode(await t.api.get(`${base}/_document_summary/${row.id}`), 404, 'CDT_NOT_FOUND');
    assert.equal(await countRecords(t, base), 0);
  });
});

describe('tenant isolation', () => {
  test("a token for tenant A is 403 on every CDT route of tenant B, and B's data is untouched", async () => {
    const a = await createTestTenant(app, cdtFormation());
    const { t: b, base } = await setup();
    const record = await createVitals(b, base);
    const attempts: [string, () => Promise<Response>][] = [
      ['list', () => a.api.get(`${base}/vitals`)],
      ['create', () => a.api.post(`${base}/vitals`, { 'cdtf-systolic': 1 })],
      ['bulk', () => a.api.patch(`${base}/vitals`, { rows: [{ id: record.id, jsonBody: { 'cdtf-note': 'x' } }] })],
      ['read', () => a.api.get(`${base}/vitals/${record.id}`)],
      ['patch', () => a.api.patch(`${base}/vitals/${record.id}`, { 'cdtf-note': 'x' })],
      ['delete', () => a.api.delete(`${base}/vitals/${record.id}`)],
    ];
    for (const [label, attempt] of attempts) assertCode(await attempt(), 403, 'TENANT_ACCESS_DENIED', label);
    assert.deepEqual((await b.api.get(`${base}/vitals/${record.id}`)).body, record);
    assert.equal(await countRecords(b, base), 1);
  });

  test("tenant B's patients and records do not exist on tenant A's paths", async () => {
    const { t: a, base: aBase } = await setup();
    const { t: b, patientId: bPatient, base: bBase } = await setup();
    const theirs = await createVitals(b, bBase);
    const crossed = `${a.base}/patients/${bPatient}/cdts`;
    assertCode(await a.api.get(`${crossed}/vitals`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.get(`${crossed}/vitals/${theirs.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.post(`${crossed}/vitals`, { 'cdtf-systolic': 1 }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.patch(`${crossed}/vitals/${theirs.id}`, { 'cdtf-note': 'x' }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await a.api.delete(`${crossed}/vitals/${theirs.id}`), 404, 'PATIENT_NOT_FOUND');
    // Their record id under A's own patient.
    assertCode(await a.api.get(`${aBase}/vitals/${theirs.id}`), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await a.api.patch(`${aBase}/vitals/${theirs.id}`, { 'cdtf-note': 'x' }), 404, 'DT_RECORD_NOT_FOUND');
    assertCode(await a.api.delete(`${aBase}/vitals/${theirs.id}`), 404, 'DT_RECORD_NOT_FOUND');
    const bulk = await a.api.patch(`${aBase}/vitals`, { rows: [{ id: theirs.id, jsonBody: { 'cdtf-note': 'x' } }] });
    assert.equal(bulk.body.rows[0].result.status, 404);
    assert.deepEqual((await b.api.get(`${bBase}/vitals/${theirs.id}`)).body, theirs);
  });
});
