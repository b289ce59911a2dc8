import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { systemContext } from '../../http/context.ts';
import { Records } from '../../records/handle.ts';
import { systemType } from '../../records/types.ts';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createPatient, createTestTenant, startApp, testFormation } from '../../test/harness.ts';
import { write } from '../../work/write.ts';

/** CDT_RECORD in the bulk export (002 "Export"): the formation's CDT records, by patient when asked. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

type Item = Record<string, unknown> & { id: string; patientId: string; cdtName: string };

const formation = testFormation({
  cdts: [
    {
      name: 'vitals',
      title: 'Vitals',
      type: 'MULTI_RECORD',
      fields: [
        { name: 'cdtf-systolic', type: 'integer', required: true },
        { name: 'cdtf-note', type: 'text' },
      ],
    },
    { name: 'social-needs', title: 'Social needs', type: 'SINGLE_RECORD', fields: [{ name: 'cdtf-housing', type: 'boolean' }] },
  ],
});

describe('export CDT_RECORD', () => {
  test('each record once, oldest update first, as its read route shows it; system records left out; patientIds', async () => {
    const t = await createTestTenant(app, formation);
    const ada = await createPatient(t);
    const bob = await createPatient(t, { firstName: 'Bob', lastName: 'Byron' });
    const create = async (patientId: string, cdtName: string, body: Record<string, unknown>) => {
      clock.advance(1);
      const response = await t.api.post(`${t.base}/patients/${patientId}/cdts/${cdtName}`, body);
      assert.equal(response.status, 201, response.text);
      return response.body.id as string;
    };
    const first = await create(ada.id, 'vitals', { 'cdtf-systolic': 120 });
    const second = await create(bob.id, 'social-needs', { 'cdtf-housing': true });
    const third = await create(ada.id, 'vitals', { 'cdtf-systolic': 130, 'cdtf-note': 'after a walk' });
    // A system type's record (its name starts with `_`) is not the formation's: not exported here.
    const ctx = systemContext(app.services, t.tenant, t.instance);
    const summaries = await Records.system(ctx, systemType({ name: '_document_summary', fields: () => [] }));
    await write(ctx, (w) => summaries.create(w, {}, { patientId: ada.id }));
    // A change moves the first record to the end.
    clock.advance(1);
    const changed = await t.api.patch(`${t.base}/patients/${ada.id}/cdts/vitals/${first}`, { 'cdtf-note': 'sitting' });
    assert.equal(changed.status, 200, changed.text);
    clock.advance(SETTLE);

    const items = await walkExport<Item>(t, 'CDT_RECORD');
    assert.deepEqual(
      items.map((item) => item.id),
      [second, third, first],
    );
    for (const item of items) {
      const read = await t.api.get(`${t.base}/patients/${item.patientId}/cdts/${item.cdtName}/${item.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(item, read.body);
    }
    assert.equal((items[2]!.jsonBody as Record<string, unknown>)['cdtf-note'], 'sitting');

    assert.deepEqual(
      (await walkExport<Item>(t, 'CDT_RECORD', { query: `&patientIds=${ada.id}` })).map((item) => item.id),
      [third, first],
    );
    assert.deepEqual(
      (await walkExport<Item>(t, 'CDT_RECORD', { query: `&patientIds=${bob.id}` })).map((item) => item.id),
      [second],
    );
    assert.deepEqual(
      (await walkExport<Item>(t, 'CDT_RECORD', { query: `&patientIds=${bob.id},${ada.id}` })).map((item) => item.id),
      [second, third, first],
    );
  });

  test('403 ACCESS_DENIED without the export permission', async () => {
    const t = await createTestTenant(app, formation);
    assertCode(await (await t.apiWith(['CDT_READ'])).get(`${t.base}/export/CDT_RECORD`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['CDT_RECORD_EXPORT'])).get(`${t.base}/export/CDT_RECORD`)).status, 200);
  });
});
