import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, assertValidation, createPatient, createTestTenant, startApp, testFormation } from '../../test/harness.ts';

/** VOICE_CALL in the bulk export (002 "Export"): calls as GET .../voice-calls/{id} shows them, `patientIds` keeping to theirs. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };

describe('voice call export', () => {
  test('every call once, oldest update first, each as GET voice call shows it; patientIds; its own permission', async () => {
    const t = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
    const pat = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', phone: '+14155550123' })).id;
    const sam = (await createPatient(t, { firstName: 'Sam', lastName: 'Lee', phone: '+14155550124' })).id;
    const ids: string[] = [];
    for (const from of ['+14155550123', '+14155550177', '+14155550124']) {
      const inbound = await t.api.post(`${t.base}/sandbox/inbound`, {
        channel: 'VOICE_CALL',
        from,
        to: phone.number,
        recorded: true,
      });
      assert.equal(inbound.status, 201, inbound.text);
      // The recording is fetched by a job.
      await app.jobs.drain();
      ids.push(inbound.body.id);
      clock.advance(1_000);
    }
    clock.advance(SETTLE);

    const items = await walkExport(t, 'VOICE_CALL');
    assert.deepEqual(
      items.map((item) => item.id),
      ids,
    );
    for (const item of items) {
      const read = await t.api.get(`${t.base}/unrecognized-patients/voice-calls/${item.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(item, read.body);
    }
    assert.ok((items[0] as unknown as { recordingFile: unknown }).recordingFile);

    const ofPatient = async (patientIds: string) =>
      (await walkExport(t, 'VOICE_CALL', { query: `&patientIds=${patientIds}` })).map((item) => item.id);
    assert.deepEqual(await ofPatient(pat), [ids[0]]);
    assert.deepEqual(await ofPatient(`${sam},${pat}`), [ids[0], ids[2]]);
    assert.deepEqual(await ofPatient(crypto.randomUUID()), []);
    assertValidation(await t.api.get(`${t.base}/export/VOICE_CALL?patientIds=nobody`), 'querystring.patientIds');

    assertCode(await (await t.apiWith(['VOICE_CALL_READ'])).get(`${t.base}/export/VOICE_CALL`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['VOICE_CALL_EXPORT'])).get(`${t.base}/export/VOICE_CALL`)).status, 200);
  });
});
