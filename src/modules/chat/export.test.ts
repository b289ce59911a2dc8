import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { walkExport } from '../../test/export-walk.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import { assertCode, createPatient, createTestTenant, startApp } from '../../test/harness.ts';

/** CHAT and MESSAGING_APP in the bulk export (002 "Export"): chat messages as the chat list shows them. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const SETTLE = 2_000;

interface Page {
  data: { id: string }[];
  cursor: { start: string | null; end: string; hasNext: boolean; pageSize: number };
}

describe('chat export', () => {
  test('CHAT: every message once, oldest first, each as the chat list shows it; its own permission', async () => {
    const t = await createTestTenant(app);
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
    const url = `${t.base}/patients/${patient}/chat`;
    const ids: string[] = [];
    const sent = await t.api.post(`${url}/inbound`, { message: 'I feel better today' });
    assert.equal(sent.status, 200, sent.text);
    ids.push(sent.body.id);
    clock.advance(1_000);
    const form = multipart([
      { field: 'message', value: 'My results' },
      { field: 'attachmentAsFiles', name: 'scan.png', content: sampleFile('png'), type: 'image/png' },
    ]);
    const withFile = await t.api.request('POST', `${url}/inbound`, form.body, form.headers);
    assert.equal(withFile.status, 200, withFile.text);
    ids.push(withFile.body.id);
    clock.advance(1_000);
    ids.push((await t.api.post(`${url}/inbound`, { message: 'Thanks', skipEvent: true })).body.id);
    clock.advance(SETTLE);

    const items = await walkExport(t, 'CHAT');
    assert.deepEqual(
      items.map((item) => item.id),
      ids,
    );
    const list = (await t.api.get(url)).body.content as { id: string }[];
    assert.deepEqual(items, list.reverse());
    assert.equal((items[1] as unknown as { attachments: unknown[] }).attachments.length, 1);

    assertCode(await (await t.apiWith(['CHAT_READ'])).get(`${t.base}/export/CHAT`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['CHAT_EXPORT'])).get(`${t.base}/export/CHAT`)).status, 200);
  });

  test('MESSAGING_APP: always empty (Cairn has no messaging-app channel), under its own permission', async () => {
    const t = await createTestTenant(app);
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
    await t.api.post(`${t.base}/patients/${patient}/chat/inbound`, { message: 'Not a messaging-app message' });
    clock.advance(SETTLE);
    const response = await t.api.get<Page>(`${t.base}/export/MESSAGING_APP?pageSize=1`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.body.data, []);
    assert.equal(response.body.cursor.hasNext, false);
    assert.ok(!Number.isNaN(new Date(response.body.cursor.end).getTime()), response.body.cursor.end);
    assertCode(await (await t.apiWith(['CHAT_EXPORT'])).get(`${t.base}/export/MESSAGING_APP`), 403, 'ACCESS_DENIED');
    assert.equal((await (await t.apiWith(['MESSAGING_APP_EXPORT'])).get(`${t.base}/export/MESSAGING_APP`)).status, 200);
  });
});
