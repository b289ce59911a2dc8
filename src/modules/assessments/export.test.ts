import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createPatient, createTestTenant, startApp, testFormation } from '../../test/harness.ts';

/** ASSESSMENT and PFA in the bulk export (002 "Export"): the staff's records and the patient-facing ones apart. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

type Item = Record<string, unknown> & { id: string };

const formation = testFormation({
  assessments: [
    {
      name: 'screen',
      title: 'Screening',
      sections: [
        {
          name: 'first',
          fields: [
            { name: 'name', label: 'Name', viewType: 'question', meta: { type: 'text' } },
            { name: 'mood', label: 'Mood', viewType: 'question', meta: { type: 'select', options: ['LOW', 'OK'] } },
          ],
        },
      ],
    },
  ],
});

describe('export ASSESSMENT and PFA', () => {
  test('each record once, oldest update first, as GET assessment record shows it; PFA apart', async () => {
    const t = await createTestTenant(app, formation);
    const patient = await createPatient(t);
    const url = `${t.base}/patients/${patient.id}/assessment-records`;
    const create = async (body: Record<string, unknown>) => {
      clock.advance(1);
      const response = await t.api.post(url, { assessmentName: 'screen', ...body });
      assert.equal(response.status, 201, response.text);
      return response.body.id as string;
    };
    const first = await create({});
    const pfa = await create({ pfa: true });
    const second = await create({ folderId: 'f-1' });
    const otherPfa = await create({ isPfa: true });
    const third = await create({});
    // An answer moves the first record to the end.
    clock.advance(1);
    assert.equal((await t.api.put(`${url}/${first}/answers`, { _screen__name: 'Ada', _screen__mood: 'OK' })).status, 200);
    clock.advance(SETTLE);

    const staff = await walkExport<Item>(t, 'ASSESSMENT');
    assert.deepEqual(
      staff.map((item) => item.id),
      [second, third, first],
    );
    const patientFacing = await walkExport<Item>(t, 'PFA');
    assert.deepEqual(
      patientFacing.map((item) => item.id),
      [pfa, otherPfa],
    );
    for (const item of [...staff, ...patientFacing]) {
      const read = await t.api.get(`${url}/${item.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(item, read.body);
    }
    assert.equal(staff[2]!.status, 'IN_PROGRESS');
  });

  test('403 ACCESS_DENIED without the export permission; each resource has its own', async () => {
    const t = await createTestTenant(app, formation);
    assertCode(await (await t.apiWith(['ASSESSMENT_READ'])).get(`${t.base}/export/ASSESSMENT`), 403, 'ACCESS_DENIED');
    const staffOnly = await t.apiWith(['ASSESSMENT_EXPORT']);
    assert.equal((await staffOnly.get(`${t.base}/export/ASSESSMENT`)).status, 200);
    assertCode(await staffOnly.get(`${t.base}/export/PFA`), 403, 'ACCESS_DENIED');
    const pfaOnly = await t.apiWith(['PFA_EXPORT']);
    assert.equal((await pfaOnly.get(`${t.base}/export/PFA`)).status, 200);
    assertCode(await pfaOnly.get(`${t.base}/export/ASSESSMENT`), 403, 'ACCESS_DENIED');
  });
});
