import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { assertCode, createPatient, createTestTenant, startApp } from '../../test/harness.ts';

/** EMAIL in the bulk export (002 "Export"): emails as GET .../emails/{id} shows them. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

describe('email export', () => {
  test('every email once, oldest update first, each as GET email by id shows it; its own permission', async () => {
    const t = await createTestTenant(app);
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' })).id;
    const drafts = `${t.base}/patients/${patient}/email-drafts`;
    const ids: string[] = [];
    for (const subject of ['Your results', 'Appointment']) {
      const draft = await t.api.post(drafts, { subject, body: 'See inside' });
      assert.equal(draft.status, 201, draft.text);
      const sent = await t.api.post(`${drafts}/${draft.body.id}/send`);
      assert.equal(sent.status, 200, sent.text);
      // The send job moves it on: its last update is the job's.
      await app.jobs.drain();
      ids.push(sent.body.id);
      clock.advance(1_000);
    }
    const inbound = await t.api.post(`${t.base}/sandbox/inbound`, {
      channel: 'EMAIL',
      from: 'pat@example.org',
      to: 'care-team@sandbox.invalid',
      subject: 'Re: Appointment',
      message: 'Can we move it?',
    });
    assert.equal(inbound.status, 201, inbound.text);
    ids.push(inbound.body.id);
    clock.advance(SETTLE);

    const items = await walkExport(t, 'EMAIL');
    assert.deepEqual(
      items.map((item) => item.id),
      ids,
    );
    for (const item of items) {
      const read = await t.api.get(`${t.base}/patients/${patient}/emails/${item.id}`);
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(item, read.body);
    }

    assertCode(await (await t.apiWith(['EMAIL_READ'])).get(`${t.base}/export/EMAIL`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['EMAIL_EXPORT'])).get(`${t.base}/export/EMAIL`)).status, 200);
  });
});
