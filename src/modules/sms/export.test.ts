import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createPatient, createTestTenant, startApp, testFormation } from '../../test/harness.ts';

/** SMS in the bulk export (002 "Export"): messages as GET .../sms/{id} shows them. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };

describe('SMS export', () => {
  test('every SMS once, oldest update first, each as GET sms by id shows it; its own permission', async () => {
    const t = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', phone: '+14155550123' })).id;
    const ids: string[] = [];
    for (const message of ['See you tomorrow', 'Bring your list']) {
      const { communicationId } = (await t.api.post(`${t.base}/communications`, { channel: 'SMS', patientContactId: patient }))
        .body;
      const sent = await t.api.post(`${t.base}/${communicationId}/messages`, { message });
      assert.equal(sent.status, 201, sent.text);
      ids.push(sent.body.id);
      clock.advance(1_000);
    }
    const inbound = await t.api.post(`${t.base}/sandbox/inbound`, {
      channel: 'SMS',
      from: '+14155550123',
      to: phone.number,
      message: 'Will do',
    });
    assert.equal(inbound.status, 201, inbound.text);
    ids.push(inbound.body.id);
    clock.advance(SETTLE);

    const items = await walkExport(t, 'SMS');
    assert.deepEqual(
      items.map((item) => item.id),
      ids,
    );
    for (const item of items) {
      const read = await t.api.get(`${t.base}/patients/${patient}/sms/${item.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(item, read.body);
    }

    assertCode(await (await t.apiWith(['SMS_READ'])).get(`${t.base}/export/SMS`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['SMS_EXPORT'])).get(`${t.base}/export/SMS`)).status, 200);
  });
});
