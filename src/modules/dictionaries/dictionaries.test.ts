import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { supportedTimezones } from '../../formation/patient-fields.ts';
import { systemContext } from '../../http/context.ts';
import {
  Api,
  assertCode,
  assertValidation,
  auditOf,
  createTestTenant,
  isoMillis,
  newInstance,
  type Response,
  startApp,
  type TestTenant,
  testFormation,
  uuidShape,
} from '../../test/harness.ts';
import { applyFormation } from '../formation/operations.ts';

/** Dictionary values (/dictionaries/{name}), the defaults, and the formation read routes. */

const app = await startApp();

const formation = () =>
  testFormation({
    dictionaries: [
      {
        name: 'referral-sources',
        title: 'Referral sources',
        internal: false,
        fields: [
          { name: 'code', type: 'TEXT', required: true },
          { name: 'label', type: 'TEXT' },
          { name: 'rank', type: 'integer' },
        ],
      },
      {
        name: 'escalation-reasons',
        title: 'Escalation reasons',
        internal: true,
        fields: [{ name: 'reason', type: 'TEXT', required: true }],
      },
    ],
  });

async function setup(): Promise<{ t: TestTenant; url: string }> {
  const t = await createTestTenant(app, formation());
  return { t, url: `${t.base}/dictionaries/referral-sources` };
}

async function add(t: TestTenant, url: string, ...values: Record<string, unknown>[]) {
  const response = await t.api.post(url, { records: values.map((v) => ({ values: v })) });
  assert.equal(response.status, 200, response.text);
  return response.body as { dictionaryName: string; lastUpdatedAt: string | null; records: any[] };
}

const codes = (body: { records: { values: { code?: string } }[] }) => body.records.map((r) => r.values.code);

describe('GET /formations/current/dictionaries', () => {
  test('lists the defaults and the formation dictionaries; internal ones only with includeInternal', async () => {
    const { t } = await setup();
    const plain = await t.api.get(`${t.base}/formations/current/dictionaries`);
    assert.equal(plain.status, 200, plain.text);
    assert.deepEqual(
      plain.body.map((d: { name: string }) => d.name),
      ['timezone', 'cpt', 'icd-10', 'referral-sources'],
    );
    for (const flag of ['true', 'True', 'TRUE']) {
      const all = await t.api.get(`${t.base}/formations/current/dictionaries?includeInternal=${flag}`);
      assert.deepEqual(
        all.body.map((d: { name: string }) => d.name),
        ['timezone', 'cpt', 'icd-10', 'referral-sources', 'escalation-reasons'],
        flag,
      );
    }
    const off = await t.api.get(`${t.base}/formations/current/dictionaries?includeInternal=false`);
    assert.equal(off.body.length, 4);
    const referral = plain.body.find((d: { name: string }) => d.name === 'referral-sources');
    assert.equal(referral.title, 'Referral sources');
    assert.equal(referral.internal, false);
    assert.deepEqual(
      referral.fields.map((f: { name: string; type: string }) => [f.name, f.type]),
      [
        ['code', 'TEXT'],
        ['label', 'TEXT'],
        ['rank', 'integer'],
      ],
    );
    const cpt = plain.body.find((d: { name: string }) => d.name === 'cpt');
    assert.deepEqual(
      cpt.fields.map((f: { name: string }) => f.name),
      ['code', 'description'],
    );
  });

  test('one dictionary by name, internal or default; an unknown one is 404', async () => {
    const { t } = await setup();
    const internal = await t.api.get(`${t.base}/formations/current/dictionaries/escalation-reasons`);
    assert.equal(internal.status, 200, internal.text);
    assert.equal(internal.body.internal, true);
    assert.equal(internal.body.name, 'escalation-reasons');
    const timezone = await t.api.get(`${t.base}/formations/current/dictionaries/timezone`);
    assert.equal(timezone.body.name, 'timezone');
    assertCode(await t.api.get(`${t.base}/formations/current/dictionaries/nope`), 404, 'FORMATION_ITEM_NOT_FOUND');
  });
});

describe('GET /dictionaries/{name}', () => {
  test('an empty dictionary answers the values response with no records', async () => {
    const { t, url } = await setup();
    const response = await t.api.get(url);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body, { dictionaryName: 'referral-sources', lastUpdatedAt: null, records: [] });
    // Internal dictionaries and cpt/icd-10 are reachable too.
    for (const name of ['escalation-reasons', 'cpt', 'icd-10']) {
      assert.equal((await t.api.get(`${t.base}/dictionaries/${name}`)).status, 200, name);
    }
  });

  test('timezone lists the supported timezones with stable ids', async () => {
    const { t } = await setup();
    const response = await t.api.get(`${t.base}/dictionaries/timezone`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.dictionaryName, 'timezone');
    assert.match(response.body.lastUpdatedAt, isoMillis);
    assert.deepEqual(
      response.body.records.map((r: { values: { value: string } }) => r.values.value),
      [...supportedTimezones],
    );
    const eastern = response.body.records[0];
    assert.deepEqual(Object.keys(eastern).sort(), ['createdAt', 'deleted', 'fullValue', 'id', 'updatedAt', 'values']);
    assert.match(eastern.id, uuidShape);
    assert.equal(eastern.fullValue, 'US/Eastern');
    assert.equal(eastern.deleted, false);
    // The same ids in every tenant and on every read.
    const other = await createTestTenant(app);
    assert.deepEqual((await other.api.get(`${other.base}/dictionaries/timezone`)).body, response.body);
    const one = await t.api.get(`${t.base}/dictionaries/timezone/${eastern.id}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, eastern);
    assertCode(await t.api.get(`${t.base}/dictionaries/timezone/${randomUUID()}`), 404, 'DICTIONARY_RECORD_NOT_FOUND');
  });

  test('404 for an unknown dictionary; 401; 403 without DICTIONARY_READ', async () => {
    const { t, url } = await setup();
    const missing = await t.api.get(`${t.base}/dictionaries/nope`);
    assertCode(missing, 404, 'DICTIONARY_NOT_FOUND');
    assert.equal(missing.body[0].details.dictionaryName, 'nope');
    assertCode(await t.anonymous.get(url), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const writer = await t.apiWith(['DICTIONARY_UPDATE']);
    const denied = await writer.get(url);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'DICTIONARY_READ');
    const reader = await t.apiWith(['DICTIONARY_READ']);
    assert.equal((await reader.get(url)).status, 200);
  });
});

describe('POST /dictionaries/{name}', () => {
  test('adds records in the order sent; answers the whole dictionary', async () => {
    const { t, url } = await setup();
    const first = await add(t, url, { code: 'WEB', label: 'Website', rank: 2 }, { code: 'GP' });
    assert.equal(first.dictionaryName, 'referral-sources');
    assert.deepEqual(codes(first), ['WEB', 'GP']);
    const [web] = first.records;
    assert.deepEqual(Object.keys(web), ['id', 'createdAt', 'updatedAt', 'fullValue', 'deleted', 'values']);
    assert.match(web.id, uuidShape);
    assert.match(web.createdAt, isoMillis);
    assert.equal(web.deleted, false);
    assert.deepEqual(web.values, { code: 'WEB', label: 'Website', rank: 2 });
    assert.equal(web.fullValue, 'WEB Website 2');
    assert.equal(first.lastUpdatedAt, web.updatedAt);
    const second = await add(t, url, { code: 'ADS' });
    assert.deepEqual(codes(second), ['WEB', 'GP', 'ADS']);
    assert.ok(second.lastUpdatedAt! >= first.lastUpdatedAt!);
    assert.deepEqual((await t.api.get(url)).body, second);
  });

  test('values may be flat; unknown and read-only keys are ignored', async () => {
    const { t, url } = await setup();
    const [read] = (await add(t, url, { code: 'WEB' })).records;
    const response = await t.api.post(url, {
      records: [
        { code: 'FLAT', other: 1 },
        { ...read, values: { ...read.values, code: 'COPY', extra: true } },
      ],
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(codes(response.body), ['WEB', 'FLAT', 'COPY']);
    assert.deepEqual(response.body.records[2].values, { code: 'COPY' });
    assert.notEqual(response.body.records[2].id, read.id);
  });

  test('bad records are a 400 naming the record and field; nothing is added', async () => {
    const { t, url } = await setup();
    await add(t, url, { code: 'KEEP' });
    assertValidation(
      await t.api.post(url, { records: [{ values: { code: 'OK' } }, { values: { label: 'x' } }] }),
      'body.records.1.values.code',
    );
    assertValidation(await t.api.post(url, { records: [{ values: { code: 5 } }] }), 'body.records.0.values.code');
    assertValidation(
      await t.api.post(url, { records: [{ values: { code: 'A', rank: 'first' } }] }),
      'body.records.0.values.rank',
    );
    assertCode(await t.api.post(url, { records: 'x' }), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.post(url, { records: [5] }), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.post(url, {}), 400, 'VALIDATION_ERROR');
    assert.deepEqual(codes((await t.api.get(url)).body), ['KEEP']);
  });

  test('cpt and icd-10 take values; timezone is 400 DICTIONARY_READ_ONLY', async () => {
    const { t } = await setup();
    const cpt = await add(t, `${t.base}/dictionaries/cpt`, { code: '99213', description: 'Office visit' });
    assert.equal(cpt.records[0].fullValue, '99213 Office visit');
    const icd = await add(t, `${t.base}/dictionaries/icd-10`, { code: 'E11.9' });
    assert.deepEqual(codes(icd), ['E11.9']);
    assertValidation(
      await t.api.post(`${t.base}/dictionaries/cpt`, { records: [{ values: { description: 'x' } }] }),
      'body.records.0.values.code',
    );
    const timezone = await t.api.post(`${t.base}/dictionaries/timezone`, { records: [{ values: { value: 'Europe/Rome' } }] });
    assertCode(timezone, 400, 'DICTIONARY_READ_ONLY');
    assert.equal(timezone.body[0].details.dictionaryName, 'timezone');
    assert.equal((await t.api.get(`${t.base}/dictionaries/timezone`)).body.records.length, supportedTimezones.length);
  });

  test('404 for an unknown dictionary; 401; 403 without DICTIONARY_UPDATE', async () => {
    const { t, url } = await setup();
    const body = { records: [{ values: { code: 'X' } }] };
    assertCode(await t.api.post(`${t.base}/dictionaries/nope`, body), 404, 'DICTIONARY_NOT_FOUND');
    assertCode(await t.anonymous.post(url, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['DICTIONARY_READ']);
    const denied = await reader.post(url, body);
    assertCode(denied, 403, 'ACCESS_DENIED');
    assert.equal(denied.body[0].details.permission, 'DICTIONARY_UPDATE');
    assert.deepEqual((await t.api.get(url)).body.records, []);
  });

  test('an addition is audited as DICTIONARY_VALUES_ADDED', async () => {
    const { t, url } = await setup();
    await add(t, url, { code: 'A' }, { code: 'B' });
    const events = await auditOf(t, { entityType: 'DICTIONARY' });
    assert.deepEqual(
      events.map((e) => [e.action, e.entityType, e.entityId]),
      [['DICTIONARY_VALUES_ADDED', 'DICTIONARY', 'referral-sources']],
    );
  });
});

describe('PUT /dictionaries/{name}', () => {
  test('deletes every old record for good and stores the new ones (201)', async () => {
    const { t, url } = await setup();
    const old = await add(t, url, { code: 'OLD1' }, { code: 'OLD2' });
    await t.api.delete(`${url}/${old.records[1].id}`);
    const replaced = await t.api.put(url, { records: [{ values: { code: 'NEW1' } }, { values: { code: 'NEW2', rank: 1 } }] });
    assert.equal(replaced.status, 201, replaced.text);
    assert.equal(replaced.body.dictionaryName, 'referral-sources');
    assert.deepEqual(codes(replaced.body), ['NEW1', 'NEW2']);
    // Soft-deleted records go too: nothing old is left, even with showDeleted.
    assert.deepEqual(codes((await t.api.get(`${url}?showDeleted=true`)).body), ['NEW1', 'NEW2']);
    for (const record of old.records) assertCode(await t.api.get(`${url}/${record.id}`), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    // An empty list empties the dictionary.
    const emptied = await t.api.put(url, { records: [] });
    assert.equal(emptied.status, 201, emptied.text);
    assert.deepEqual(emptied.body.records, []);
  });

  test('bad records are a 400 and the old records stay', async () => {
    const { t, url } = await setup();
    await add(t, url, { code: 'KEEP' });
    assertValidation(
      await t.api.put(url, { records: [{ values: { code: 'OK' } }, { values: { rank: 1 } }] }),
      'body.records.1.values.code',
    );
    assertCode(await t.api.put(url, { records: {} }), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.put(url, {}), 400, 'VALIDATION_ERROR');
    assert.deepEqual(codes((await t.api.get(url)).body), ['KEEP']);
  });

  test('timezone is read-only; 404 for an unknown dictionary; 401; 403 without DICTIONARY_UPDATE', async () => {
    const { t, url } = await setup();
    await add(t, url, { code: 'KEEP' });
    const body = { records: [{ values: { code: 'X' } }] };
    assertCode(await t.api.put(`${t.base}/dictionaries/timezone`, { records: [] }), 400, 'DICTIONARY_READ_ONLY');
    assertCode(await t.api.put(`${t.base}/dictionaries/nope`, body), 404, 'DICTIONARY_NOT_FOUND');
    assertCode(await t.anonymous.put(url, body), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['DICTIONARY_READ']);
    assertCode(await reader.put(url, body), 403, 'ACCESS_DENIED');
    assert.deepEqual(codes((await t.api.get(url)).body), ['KEEP']);
  });

  test('a replacement is audited as DICTIONARY_VALUES_REPLACED', async () => {
    const { t, url } = await setup();
    await t.api.put(url, { records: [{ values: { code: 'A' } }] });
    const events = await auditOf(t, { entityType: 'DICTIONARY' });
    assert.deepEqual(
      events.map((e) => [e.action, e.entityId]),
      [['DICTIONARY_VALUES_REPLACED', 'referral-sources']],
    );
  });
});

describe('GET /dictionaries/{name}/{recordId}', () => {
  test('reads a record; a missing one, or one of another dictionary, is 404', async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'WEB', label: 'Website' })).records;
    const read = await t.api.get(`${url}/${record.id}`);
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, record);
    const missingId = randomUUID();
    const missing = await t.api.get(`${url}/${missingId}`);
    assertCode(missing, 404, 'DICTIONARY_RECORD_NOT_FOUND');
    assert.deepEqual(missing.body[0].details, { dictionaryName: 'referral-sources', dictionaryRecordId: missingId });
    assertCode(await t.api.get(`${t.base}/dictionaries/cpt/${record.id}`), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/dictionaries/nope/${record.id}`), 404, 'DICTIONARY_NOT_FOUND');
    assertValidation(await t.api.get(`${url}/not-a-uuid`), 'params.recordId');
  });

  test('401 without a token; 403 without DICTIONARY_READ', async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'WEB' })).records;
    assertCode(await t.anonymous.get(`${url}/${record.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const nobody = new Api(app.server, (await t.clientWithRole('nothing')).token);
    assertCode(await nobody.get(`${url}/${record.id}`), 403, 'ACCESS_DENIED');
  });
});

describe('PUT /dictionaries/{name}/{recordId}', () => {
  test("replaces the record's values; fields left out are removed", async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'WEB', label: 'Website', rank: 1 })).records;
    const put = await t.api.put(`${url}/${record.id}`, { values: { code: 'WWW', rank: 3 } });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.id, record.id);
    assert.deepEqual(put.body.values, { code: 'WWW', rank: 3 });
    assert.equal(put.body.fullValue, 'WWW 3');
    assert.equal(put.body.createdAt, record.createdAt);
    assert.ok(put.body.updatedAt >= record.updatedAt);
    assert.deepEqual((await t.api.get(`${url}/${record.id}`)).body, put.body);
  });

  test('a record read and sent back with a change succeeds; read-only keys are ignored', async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'WEB' })).records;
    await t.api.delete(`${url}/${record.id}`);
    const sent = { ...record, id: randomUUID(), deleted: false, createdAt: '2000-01-01T00:00:00.000Z', values: { code: 'NEW' } };
    const put = await t.api.put(`${url}/${record.id}`, sent);
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.id, record.id);
    assert.equal(put.body.createdAt, record.createdAt);
    assert.equal(put.body.deleted, true, 'a PUT does not undelete');
    assert.deepEqual(put.body.values, { code: 'NEW' });
  });

  test('bad values are a 400 and leave the record; 404 for a missing record; timezone is read-only', async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'WEB' })).records;
    assertValidation(await t.api.put(`${url}/${record.id}`, { values: { label: 'no code' } }), 'body.values.code');
    assertValidation(await t.api.put(`${url}/${record.id}`, { values: { code: 'A', rank: '1' } }), 'body.values.rank');
    assertCode(await t.api.put(`${url}/${record.id}`, [1]), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.put(`${url}/${randomUUID()}`, { values: { code: 'X' } }), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    assertCode(
      await t.api.put(`${t.base}/dictionaries/nope/${record.id}`, { values: { code: 'X' } }),
      404,
      'DICTIONARY_NOT_FOUND',
    );
    const zone = (await t.api.get(`${t.base}/dictionaries/timezone`)).body.records[0];
    assertCode(
      await t.api.put(`${t.base}/dictionaries/timezone/${zone.id}`, { values: { value: 'UTC' } }),
      400,
      'DICTIONARY_READ_ONLY',
    );
    assert.deepEqual((await t.api.get(`${url}/${record.id}`)).body, record);
  });

  test('401; 403 without DICTIONARY_UPDATE; audited as DICTIONARY_RECORD_UPDATED', async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'WEB' })).records;
    assertCode(await t.anonymous.put(`${url}/${record.id}`, { values: { code: 'X' } }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['DICTIONARY_READ']);
    assertCode(await reader.put(`${url}/${record.id}`, { values: { code: 'X' } }), 403, 'ACCESS_DENIED');
    await t.api.put(`${url}/${record.id}`, { values: { code: 'X', label: 'y' } });
    const [latest] = await auditOf(t, { entityType: 'DICTIONARY' });
    assert.equal(latest!.action, 'DICTIONARY_RECORD_UPDATED');
    assert.equal(latest!.entityId, record.id);
    assert.deepEqual(latest!.changedFields, ['code', 'label']);
  });
});

describe('DELETE /dictionaries/{name}/{recordId}', () => {
  test('a soft delete: answers the record with deleted true; listed only with showDeleted', async () => {
    const { t, url } = await setup();
    const added = await add(t, url, { code: 'A' }, { code: 'B' });
    const [a, b] = added.records;
    const deleted = await t.api.delete(`${url}/${a.id}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(deleted.body.id, a.id);
    assert.equal(deleted.body.deleted, true);
    assert.deepEqual(deleted.body.values, a.values);
    const listed = (await t.api.get(url)).body;
    assert.deepEqual(codes(listed), ['B']);
    assert.equal(listed.lastUpdatedAt, deleted.body.updatedAt);
    for (const flag of ['true', 'TRUE', 'True']) {
      const all = (await t.api.get(`${url}?showDeleted=${flag}`)).body;
      assert.deepEqual(
        all.records.map((r: { id: string; deleted: boolean }) => [r.id, r.deleted]),
        [
          [a.id, true],
          [b.id, false],
        ],
      );
    }
    assert.deepEqual(codes((await t.api.get(`${url}?showDeleted=false`)).body), ['B']);
    assert.deepEqual((await t.api.get(`${url}/${a.id}`)).body, deleted.body);
    // Deleting again answers the same record and changes nothing.
    const again = await t.api.delete(`${url}/${a.id}`);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, deleted.body);
  });

  test('404 for a missing record; timezone is read-only; 401; 403 without DICTIONARY_UPDATE', async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'A' })).records;
    assertCode(await t.api.delete(`${url}/${randomUUID()}`), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    assertCode(await t.api.delete(`${t.base}/dictionaries/nope/${record.id}`), 404, 'DICTIONARY_NOT_FOUND');
    assertValidation(await t.api.delete(`${url}/nope`), 'params.recordId');
    const zone = (await t.api.get(`${t.base}/dictionaries/timezone`)).body.records[0];
    assertCode(await t.api.delete(`${t.base}/dictionaries/timezone/${zone.id}`), 400, 'DICTIONARY_READ_ONLY');
    assertCode(await t.anonymous.delete(`${url}/${record.id}`), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    const reader = await t.apiWith(['DICTIONARY_READ']);
    assertCode(await reader.delete(`${url}/${record.id}`), 403, 'ACCESS_DENIED');
    assert.equal((await t.api.get(`${url}/${record.id}`)).body.deleted, false);
  });

  test('a delete is audited once as DICTIONARY_RECORD_DELETED', async () => {
    const { t, url } = await setup();
    const [record] = (await add(t, url, { code: 'A' })).records;
    await t.api.delete(`${url}/${record.id}`);
    await t.api.delete(`${url}/${record.id}`);
    const events = await auditOf(t, { entityType: 'DICTIONARY' });
    assert.deepEqual(
      events.map((e) => [e.action, e.entityId]),
      [
        ['DICTIONARY_RECORD_DELETED', record.id],
        ['DICTIONARY_VALUES_ADDED', 'referral-sources'],
      ],
    );
  });
});

describe('tenant and instance isolation', () => {
  test("a token for tenant A is 403 on every dictionary route of tenant B, and B's values are untouched", async () => {
    const { t: a } = await setup();
    const { t: b, url } = await setup();
    const before = await add(b, url, { code: 'B1' });
    const id = before.records[0].id;
    const body = { records: [{ values: { code: 'X' } }] };
    const attempts: [string, () => Promise<Response>][] = [
      ['list', () => a.api.get(url)],
      ['add', () => a.api.post(url, body)],
      ['replace', () => a.api.put(url, body)],
      ['read', () => a.api.get(`${url}/${id}`)],
      ['put', () => a.api.put(`${url}/${id}`, { values: { code: 'X' } })],
      ['delete', () => a.api.delete(`${url}/${id}`)],
    ];
    for (const [label, attempt] of attempts) assertCode(await attempt(), 403, 'TENANT_ACCESS_DENIED', label);
    assert.deepEqual((await b.api.get(url)).body, before);
  });

  test("tenant B's records do not exist on tenant A's paths", async () => {
    const { t: a, url: aUrl } = await setup();
    const { t: b, url: bUrl } = await setup();
    await add(a, aUrl, { code: 'A1' });
    const theirs = (await add(b, bUrl, { code: 'B1' })).records[0];
    assertCode(await a.api.get(`${aUrl}/${theirs.id}`), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    assertCode(await a.api.put(`${aUrl}/${theirs.id}`, { values: { code: 'X' } }), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    assertCode(await a.api.delete(`${aUrl}/${theirs.id}`), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    assert.deepEqual(codes((await a.api.get(aUrl)).body), ['A1']);
    // A replacement in A leaves B's dictionary alone.
    await a.api.put(aUrl, { records: [] });
    assert.deepEqual(codes((await b.api.get(bUrl)).body), ['B1']);
    assert.deepEqual((await b.api.get(`${bUrl}/${theirs.id}`)).body, theirs);
  });

  test("a second instance has its own values, and its formation's dictionaries only", async () => {
    const { t, url } = await setup();
    const record = (await add(t, url, { code: 'S1' })).records[0];
    const live = await newInstance(app, t.tenant, 'live');
    await applyFormation(systemContext(app.services, t.tenant, live), testFormation());
    const liveApi = new Api(app.server, (await t.clientWithRole('admin', { ...live, currentFormationVersion: 1 })).token);
    const liveBase = `/${t.tenant.name}/live/dictionaries`;
    assertCode(await liveApi.get(`${liveBase}/referral-sources`), 404, 'DICTIONARY_NOT_FOUND');
    assertCode(await liveApi.get(`${liveBase}/cpt/${record.id}`), 404, 'DICTIONARY_RECORD_NOT_FOUND');
    await add(t, `${t.base}/dictionaries/cpt`, { code: 'SANDBOX' });
    const liveCpt = await liveApi.post(`${liveBase}/cpt`, { records: [{ values: { code: 'LIVE' } }] });
    assert.deepEqual(codes(liveCpt.body), ['LIVE']);
    assert.deepEqual(codes((await t.api.get(`${t.base}/dictionaries/cpt`)).body), ['SANDBOX']);
  });
});
