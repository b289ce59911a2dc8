import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { uuidv7 } from '../../db/ids.ts';
import { TestClock } from '../../test/clock.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import {
  Api,
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  startApp,
  type TestTenant,
} from '../../test/harness.ts';

/** A patient's chat: token pages both ways, search, inbound messages with files, archive and restore. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });

async function setup(): Promise<{ t: TestTenant; patient: string; url: string }> {
  const t = await createTestTenant(app);
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
  return { t, patient, url: `${t.base}/patients/${patient}/chat` };
}

/** Messages straight into the table, oldest first, some sharing a millisecond (ties go by id). */
async function seedMessages(t: TestTenant, patient: string, count: number): Promise<string[]> {
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const rows = Array.from({ length: count }, (_, i) => ({
    tenant_id: t.tenant.id,
    instance_id: t.instance.id,
    id: uuidv7(),
    patient_id: patient,
    sender_type: 'PATIENT',
    sender_id: patient,
    message: i % 10 === 0 ? `Blood Sugar reading ${i}` : `message ${i}`,
    external_id: `IM${i}`,
    created_at: new Date(base + Math.floor(i / 3) * 1000),
  }));
  await app.services.db.insertInto('chat_messages').values(rows).execute();
  // Newest first, as the list reads: by time, then id, both descending.
  return rows.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1)).map((row) => row.id);
}

describe('chat list', () => {
  test('token pages walk 1,000 messages down and back up with no gap or repeat', async () => {
    const { t, patient, url } = await setup();
    const expected = await seedMessages(t, patient, 1000);
    const seen: string[] = [];
    const tokens: (string | null)[] = [];
    let response = await t.api.get(`${url}?size=37`);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.meta.prevPageToken, null);
    for (;;) {
      assert.equal(response.body.meta.found, response.body.content.length > 0);
      assert.equal(response.body.meta.isFound, response.body.meta.found);
      assert.equal(response.body.meta.pageSize, 37);
      seen.push(...response.body.content.map((message: { id: string }) => message.id));
      tokens.push(response.body.meta.prevPageToken);
      if (!response.body.meta.nextPageToken) break;
      response = await t.api.get(`${url}?pageToken=${response.body.meta.nextPageToken}`);
    }
    assert.deepEqual(seen, expected);
    // Back up from the last page with prevPageToken alone.
    const upwards: string[] = [];
    let token = tokens.at(-1);
    while (token) {
      const back = await t.api.get(`${url}?pageToken=${token}`);
      upwards.unshift(...back.body.content.map((message: { id: string }) => message.id));
      token = back.body.meta.prevPageToken;
    }
    const lastPage = expected.length % 37 || 37;
    assert.deepEqual(upwards, expected.slice(0, expected.length - lastPage));
  });

  test('a tampered, foreign or garbage token is 400 INVALID_PAGE_TOKEN', async () => {
    const { t, url } = await setup();
    const other = await setup();
    await t.api.post(`${url}/inbound`, { message: 'one' });
    await t.api.post(`${url}/inbound`, { message: 'two' });
    const first = await t.api.get(`${url}?size=1`);
    const token: string = first.body.meta.nextPageToken;
    assertCode(await t.api.get(`${url}?pageToken=${token.slice(0, -2)}xx`), 400, 'INVALID_PAGE_TOKEN');
    assertCode(await t.api.get(`${url}?pageToken=garbage`), 400, 'INVALID_PAGE_TOKEN');
    const otherPatient = (await createPatient(t, { firstName: 'Other', lastName: 'One' })).id;
    assertCode(await t.api.get(`${t.base}/patients/${otherPatient}/chat?pageToken=${token}`), 400, 'INVALID_PAGE_TOKEN');
    assertCode(await other.t.api.get(`${other.url}?pageToken=${token}`), 400, 'INVALID_PAGE_TOKEN');
    assertValidation(await t.api.get(`${url}?size=0`));
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/chat`), 404, 'PATIENT_NOT_FOUND');
  });
});

describe('inbound', () => {
  test('JSON {message}: 200 with the message as production shows it, and a CHAT event unless skipEvent', async () => {
    const { t, patient, url } = await setup();
    const sent = await t.api.post(`${url}/inbound`, { message: 'I feel better today' });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.sender.clientType, 'PATIENT');
    assert.equal(sent.body.sender.id, patient);
    assert.equal(sent.body.sender.patientFullName, 'Pat Lee');
    assert.equal(sent.body.receiver, null);
    assert.match(sent.body.externalId, /^IM[0-9a-f]{32}$/);
    assert.deepEqual(sent.body.attachments, []);
    clock.advance(1234);
    await t.api.post(`${url}/inbound`, { message: 'quiet', skipEvent: true });
    const events = await app.services.db
      .selectFrom('events')
      .select(['event_subtype', 'record_id'])
      .where('tenant_id', '=', t.tenant.id)
      .where('event_entity', '=', 'CHAT')
      .execute();
    assert.deepEqual(events, [{ event_subtype: 'CHAT_CREATED', record_id: sent.body.id }]);
    const list = await t.api.get(url);
    assert.equal(list.body.content.length, 2);
    // The list writes createdAt to the second.
    assert.match(list.body.content[0].createdAt, /\.000Z$/);
    assert.equal(list.body.content[0].sender.patientFullName, null);
    assertCode(await t.api.post(`${url}/inbound`, { message: '' }), 400, 'VALIDATION_ERROR');
    assertCode(await t.api.post(`${url}/inbound`, {}), 400, 'VALIDATION_ERROR');
  });

  test('multipart: message and files, checked by content, with links that expire', async () => {
    const { t, url } = await setup();
    const form = multipart([
      { field: 'message', value: 'My results' },
      { field: 'attachmentAsFiles', name: 'scan.png', content: sampleFile('png'), type: 'image/png' },
      { field: 'attachmentAsFiles', name: 'report.pdf', content: sampleFile('pdf'), type: 'application/pdf' },
    ]);
    const sent = await t.api.request('POST', `${url}/inbound`, form.body, form.headers);
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.message, 'My results');
    assert.deepEqual(sent.body.attachments.map((file: { originalName: string }) => file.originalName).sort(), [
      'report.pdf',
      'scan.png',
    ]);
    assert.ok(sent.body.attachments.every((file: { url: string }) => file.url.includes('expires=')));
    const fileOnly = multipart([{ field: 'attachmentAsFiles', name: 'a.png', content: sampleFile('png'), type: 'image/png' }]);
    assert.equal((await t.api.request('POST', `${url}/inbound`, fileOnly.body, fileOnly.headers)).status, 200);
    const empty = multipart([{ field: 'message', value: '  ' }]);
    assertCode(await t.api.request('POST', `${url}/inbound`, empty.body, empty.headers), 400, 'EMPTY_MESSAGE');
    const lying = multipart([{ field: 'attachmentAsFiles', name: 'x.png', content: sampleFile('pdf'), type: 'image/png' }]);
    assertCode(await t.api.request('POST', `${url}/inbound`, lying.body, lying.headers), 400, 'FILE_CONTENT_MISMATCH');
    const exe = multipart([{ field: 'attachmentAsFiles', name: 'x.exe', content: Buffer.from('MZ') }]);
    assertCode(await t.api.request('POST', `${url}/inbound`, exe.body, exe.headers), 400, 'FILE_TYPE_NOT_ALLOWED');
    const files = await app.services.db.selectFrom('files').select('id').where('tenant_id', '=', t.tenant.id).execute();
    assert.equal(files.length, 3);
  });
});

describe('search', () => {
  test('matches any case, pages by token, and each hit opens the list around it', async () => {
    const { t, patient, url } = await setup();
    const all = await seedMessages(t, patient, 100);
    const hits = all.filter((_, index) => (99 - index) % 10 === 0);
    const first = await t.api.get(`${url}/search?query=blood%20SUGAR&pageSize=4&contentPageSize=3`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.content.length, 4);
    assert.deepEqual(
      first.body.content.map((hit: { message: { id: string } }) => hit.message.id),
      hits.slice(0, 4),
    );
    const second = await t.api.get(`${url}/search?pageToken=${first.body.meta.nextPageToken}`);
    assert.deepEqual(
      second.body.content.map((hit: { message: { id: string } }) => hit.message.id),
      hits.slice(4, 8),
    );
    const around = await t.api.get(`${url}?pageToken=${first.body.content[0].meta.nextPageToken}`);
    const at = all.indexOf(hits[0]!);
    assert.deepEqual(
      around.body.content.map((message: { id: string }) => message.id),
      all.slice(at + 1, at + 4),
    );
    assertValidation(await t.api.get(`${url}/search`), 'querystring.query');
  });
});

describe('archive and restore', () => {
  test('users only: archived messages leave the list until restored; API clients get 403', async () => {
    const { t, url } = await setup();
    await t.api.post(`${url}/inbound`, { message: 'old' });
    clock.advance(60_000);
    await t.api.post(`${url}/inbound`, { message: 'new' });
    const refused = await t.api.post(`${url}/archive`, { archiveDate: clock.now().toISOString() });
    assertCode(refused, 403, 'ACCESS_FOR_API_CLIENT_RESTRICTED');
    const user = await t.api.post(`${t.admin}/users`, {
      username: 'coordinator',
      email: 'coordinator@example.org',
      roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
    });
    assert.equal(user.status, 201, user.text);
    await t.api.put(`${t.admin}/users/coordinator/password`, { password: 'a long enough password' });
    const login = await t.anonymous.post('/auth/token', {
      tenantName: t.tenant.name,
      username: 'coordinator',
      password: 'a long enough password',
    });
    const coordinator = new Api(app.server, login.body.token);
    const archived = await coordinator.post(`${url}/archive`, {
      archiveDate: new Date(clock.now().getTime() - 30_000).toISOString(),
    });
    assert.equal(archived.status, 200, archived.text);
    assert.deepEqual(
      (await t.api.get(url)).body.content.map((message: { message: string }) => message.message),
      ['new'],
    );
    assert.equal((await t.api.get(`${url}?includeArchived=true`)).body.content.length, 2);
    assert.equal((await coordinator.post(`${url}/restore`)).status, 200);
    assert.equal((await t.api.get(url)).body.content.length, 2);
    assertValidation(await coordinator.post(`${url}/archive`, { archiveDate: 'soon' }));
  });
});
