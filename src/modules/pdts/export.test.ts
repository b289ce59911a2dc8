import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createTestTenant, startApp, testFormation } from '../../test/harness.ts';

/** PDT_RECORD in the bulk export (002 "Export"), under its own permission (000). */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

type Item = Record<string, unknown> & { id: string; pdtName: string };

const formation = testFormation({
  pdts: [
    {
      name: 'caregiver',
      title: 'Caregiver',
      contactable: true,
      fields: [
        { name: 'pdtf-first-name', type: 'text', required: true },
        { name: 'pdtf-last-name', type: 'text', required: true },
        { name: 'pdtf-age', type: 'integer' },
      ],
    },
    { name: 'physician', title: 'Physician', contactable: false, fields: [{ name: 'pdtf-npi', type: 'text', required: true }] },
  ],
});

describe('export PDT_RECORD', () => {
  test('each record once, oldest update first, as GET /pdts/{pdtName}/{pdtId} shows it (deleted ones too)', async () => {
    const t = await createTestTenant(app, formation);
    const create = async (pdtName: string, body: Record<string, unknown>) => {
      clock.advance(1);
      const response = await t.api.post(`${t.base}/pdts/${pdtName}`, body);
      assert.equal(response.status, 201, response.text);
      return response.body.id as string;
    };
    const ann = await create('caregiver', { 'pdtf-first-name': 'Ann', 'pdtf-last-name': 'Lee' });
    const npi = await create('physician', { 'pdtf-npi': '1234567890' });
    const ben = await create('caregiver', { 'pdtf-first-name': 'Ben', 'pdtf-last-name': 'Ode', 'pdtf-age': 40 });
    // A soft delete is a change: the record moves to the end, deleted.
    clock.advance(1);
    assert.equal((await t.api.delete(`${t.base}/pdts/caregiver/${ann}`)).status, 200);
    clock.advance(SETTLE);

    const items = await walkExport<Item>(t, 'PDT_RECORD');
    assert.deepEqual(
      items.map((item) => item.id),
      [npi, ben, ann],
    );
    for (const item of items) {
      const read = await t.api.get(`${t.base}/pdts/${item.pdtName}/${item.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(item, read.body);
    }
    assert.equal(items[2]!.deleted, true);
  });

  test('403 ACCESS_DENIED without the export permission', async () => {
    const t = await createTestTenant(app, formation);
    assertCode(await (await t.apiWith(['PDT_READ'])).get(`${t.base}/export/PDT_RECORD`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['PDT_RECORD_EXPORT'])).get(`${t.base}/export/PDT_RECORD`)).status, 200);
  });
});
