import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/clock.ts';
import { assertOutcome, errorsOf, fhirBase, idsOf } from '../../test/fhir.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import { type Api, createPatient, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/**
 * Communication (base R4) from three sources, chat messages, SMS and emails, served as one type:
 * every resource validates with an EventStatus code; each search parameter across the sources (one
 * a source does not serve matches none of it); paging through all three in id order; a caller
 * served only the sources its permissions read; tenancy, the access log and the API document.
 */

const clock = new TestClock('2026-04-01T10:00:00.000Z');
const app = await startApp({}, { clock });

/** EventStatus: a required binding, its codes checked here since the validator checks none. */
const STATUSES = ['preparation', 'in-progress', 'not-done', 'on-hold', 'stopped', 'completed', 'entered-in-error', 'unknown'];
const CHANNEL = 'https://cairn.health/fhir/CodeSystem/communication-channel';
const MODE = 'http://terminology.hl7.org/CodeSystem/v3-ParticipationMode';
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };

async function ok(response: Promise<{ status: number; text: string; body: any }>, status = 200) {
  const answer = await response;
  assert.equal(answer.status, status, answer.text);
  return answer.body;
}

/**
 * One of each kind of message, a minute apart (`at(n)`: the instant of the n-th): two chat
 * messages, two SMS, two emails and an unrecognised SMS.
 */
async function messages(t: TestTenant) {
  const start = clock.now().getTime();
  const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();
  const ada = await createPatient(t, { firstName: 'Ada', lastName: 'Quill', phone: '+14155550123', email: 'ada@example.org' });
  const bo = await createPatient(t, { firstName: 'Bo', lastName: 'Other', phone: '+14155550124', email: 'bo@example.org' });
  const step = () => clock.advance(60_000);
  const chatText = await ok(t.api.post(`${t.base}/patients/${ada.id}/chat/inbound`, { message: 'Hello from the app' }));
  step();
  const photo = multipart([{ name: 'photo.png', content: sampleFile('png', 120), field: 'attachmentAsFiles' }]);
  const chatPhoto = await ok(t.api.request('POST', `${t.base}/patients/${bo.id}/chat/inbound`, photo.body, photo.headers));
  step();
  const smsIn = await ok(
    t.api.post(`${t.base}/sandbox/inbound`, { channel: 'SMS', from: '+14155550123', to: phone.number, message: 'Running late' }),
    201,
  );
  step();
  const sendId = (await ok(t.api.post(`${t.base}/communications`, { channel: 'SMS', patientContactId: ada.id }))).communicationId;
  const smsOut = await ok(t.api.post(`${t.base}/${sendId}/messages`, { message: 'See you tomorrow' }), 201);
  const sent = (await ok(t.api.get(`${t.base}/sandbox/outbox`))).content.find((m: any) => m.reference === smsOut.id);
  await ok(t.api.post(`${t.base}/sandbox/outbox/${sent.id}/bounce`, { error: 'carrier violation' }));
  step();
  const emailIn = await ok(
    t.api.post(`${t.base}/sandbox/inbound`, {
      channel: 'EMAIL',
      from: 'ada@example.org',
      to: 'care-team@sandbox.invalid',
      subject: 'Re: Appointment',
      message: 'Can we move it?',
    }),
    201,
  );
  step();
  const drafts = `${t.base}/patients/${bo.id}/email-drafts`;
  const draft = await ok(t.api.post(drafts, { subject: 'Your results', body: '<p>All clear</p>', bodyType: 'HTML' }), 201);
  const emailOut = await ok(t.api.post(`${drafts}/${draft.id}/send`));
  step();
  const stranger = await ok(
    t.api.post(`${t.base}/sandbox/inbound`, { channel: 'SMS', from: '+14155550999', to: phone.number, message: 'Who is this?' }),
    201,
  );
  return { at, ada, bo, chatText, chatPhoto, smsIn, smsOut, emailIn, emailOut, stranger };
}

function assertValid(resource: any) {
  assert.deepEqual(errorsOf(resource), []);
  assert.equal(resource.resourceType, 'Communication');
  assert.ok(STATUSES.includes(resource.status), resource.status);
}

const tenant = () => createTestTenant(app, testFormation({ instancePhones: [phone] }));

describe('FHIR R4: Communication (chat messages, SMS and emails)', () => {
  test('each source read by id validates as base R4, with its channel, medium, parties, times and payload', async () => {
    const t = await tenant();
    const m = await messages(t);
    const read = async (id: string) => {
      const resource = await ok(t.api.get(`${fhirBase(t)}/Communication/${id}`));
      assertValid(resource);
      return resource;
    };
    const coded = (resource: any) => [resource.category[0].coding[0], resource.medium[0].coding[0]];

    const chat = await read(m.chatText.id);
    assert.deepEqual(coded(chat), [
      { system: CHANNEL, code: 'chat', display: 'Chat' },
      { system: MODE, code: 'MSGWRIT', display: 'messaging' },
    ]);
    assert.equal(chat.status, 'completed');
    assert.deepEqual(chat.subject, { reference: `Patient/${m.ada.id}` });
    assert.deepEqual(chat.sender, { reference: `Patient/${m.ada.id}` });
    assert.equal(chat.sent, m.at(0));
    assert.deepEqual(chat.payload, [{ contentString: 'Hello from the app' }]);
    const photo = await read(m.chatPhoto.id);
    assert.deepEqual(photo.payload, [
      {
        contentAttachment: {
          contentType: 'image/png',
          size: 120,
          title: 'photo.png',
          creation: m.at(1),
        },
      },
    ]);

    const smsIn = await read(m.smsIn.id);
    assert.deepEqual(coded(smsIn), [
      { system: CHANNEL, code: 'sms', display: 'SMS' },
      { system: MODE, code: 'SMSWRIT', display: 'SMS message' },
    ]);
    assert.equal(smsIn.status, 'completed');
    assert.equal(smsIn.received, m.at(2));
    assert.equal(smsIn.sent, undefined);
    assert.deepEqual(smsIn.sender, { reference: `Patient/${m.ada.id}` });
    assert.deepEqual(smsIn.payload, [{ contentString: 'Running late' }]);
    const smsOut = await read(m.smsOut.id);
    assert.equal(smsOut.status, 'stopped', 'UNDELIVERED: it left, the carrier could not deliver it');
    assert.deepEqual(smsOut.statusReason, { text: 'carrier violation' });
    assert.deepEqual(smsOut.recipient, [{ reference: `Patient/${m.ada.id}` }]);
    assert.deepEqual(smsOut.sender, { display: `API_CLIENT:${t.adminClient.name}` }, 'an API client is named only');

    const emailIn = await read(m.emailIn.id);
    assert.deepEqual(coded(emailIn), [
      { system: CHANNEL, code: 'email', display: 'Email' },
      { system: MODE, code: 'EMAILWRIT', display: 'email' },
    ]);
    assert.equal(emailIn.status, 'completed');
    assert.deepEqual(emailIn.topic, { text: 'Re: Appointment' });
    assert.deepEqual(emailIn.payload, [{ contentString: 'Can we move it?' }]);
    const emailOut = await read(m.emailOut.id);
    assert.deepEqual(emailOut.subject, { reference: `Patient/${m.bo.id}` });
    const [html] = emailOut.payload;
    assert.equal(html.contentAttachment.contentType, 'text/html');
    assert.match(Buffer.from(html.contentAttachment.data, 'base64').toString(), /All clear/);

    // An SMS from a number nobody has is no patient's: not served, as no patient route reads it.
    const stranger = await t.api.get(`${fhirBase(t)}/Communication/${m.stranger.id}`);
    assertOutcome(stranger, 404, 'CHAT_MESSAGE_NOT_FOUND');
  });

  test('searches across the three sources: each parameter, AND and OR, 400s, _summary=count, paging in id order', async () => {
    const t = await tenant();
    const m = await messages(t);
    const all = [m.chatText, m.chatPhoto, m.smsIn, m.smsOut, m.emailIn, m.emailOut].map((message) => message.id);
    const search = async (query: string) => {
      const bundle = await ok(t.api.get(`${fhirBase(t)}/Communication?${query}`));
      for (const entry of bundle.entry ?? []) assertValid(entry.resource);
      return idsOf(bundle);
    };
    const ids = (...found: { id: string }[]) => found.map((message) => message.id).sort();
    assert.deepEqual(await search('_count=100'), [...all].sort());
    assert.deepEqual(await search(`patient=${m.ada.id}`), ids(m.chatText, m.smsIn, m.smsOut, m.emailIn));
    assert.deepEqual(await search(`subject=Patient/${m.bo.id}`), ids(m.chatPhoto, m.emailOut));
    assert.deepEqual(await search('category=sms'), ids(m.smsIn, m.smsOut));
    assert.deepEqual(await search(`category=${CHANNEL}|chat,email`), ids(m.chatText, m.chatPhoto, m.emailIn, m.emailOut));
    assert.deepEqual(await search('category=http://terminology.hl7.org/CodeSystem/communication-category|sms'), []);
    assert.deepEqual(await search('category=fax'), []);
    assert.deepEqual(await search(`medium=${MODE}|EMAILWRIT`), ids(m.emailIn, m.emailOut));
    assert.deepEqual(await search(`medium=SMSWRIT&patient=${m.ada.id}`), ids(m.smsIn, m.smsOut));
    assert.deepEqual(await search('medium=MSGWRIT'), ids(m.chatText, m.chatPhoto));
    assert.deepEqual(await search('status=stopped'), ids(m.smsOut));
    assert.deepEqual(await search('status=not-done'), []);
    assert.deepEqual(await search(`status=completed&patient=${m.ada.id}`), ids(m.chatText, m.smsIn, m.emailIn));
    // `received` is no chat parameter: chat messages match none.
    assert.deepEqual(await search('received=ge2026-04-01'), ids(m.smsIn, m.emailIn));
    assert.deepEqual(await search(`received=lt${m.at(3)}`), ids(m.smsIn));
    assert.deepEqual(await search(`sent=lt${m.at(1)}`), ids(m.chatText));
    assert.deepEqual(await search(`sent=${m.at(1)}`), ids(m.chatPhoto));
    assert.deepEqual(await search(`_id=${m.chatText.id},${m.smsOut.id},${m.emailOut.id}`), ids(m.chatText, m.smsOut, m.emailOut));
    assert.deepEqual(await search(`_lastUpdated=ge${m.at(4)}`), ids(m.emailIn, m.emailOut));
    assert.deepEqual(await search(`patient=${randomUUID()}`), []);
    for (const bad of ['status=sent', 'sent=tomorrow', 'received=13-2026', `_cursor=nope`, 'category=']) {
      assertOutcome(await t.api.get(`${fhirBase(t)}/Communication?${bad}`), 400, 'VALIDATION_ERROR');
    }
    assert.equal((await ok(t.api.get(`${fhirBase(t)}/Communication?_summary=count`))).total, 6);
    assert.equal((await ok(t.api.get(`${fhirBase(t)}/Communication?_summary=count&category=chat,sms`))).total, 4);

    // Pages of two through three sources: every message once, in id order, the search kept.
    const seen: string[] = [];
    let pages = 0;
    let next: string | undefined = `${fhirBase(t)}/Communication?_count=2`;
    while (next) {
      const page: any = await ok(t.api.get(next.replace('http://localhost:80', '')));
      pages += 1;
      assert.ok(page.entry.length <= 2);
      seen.push(...page.entry.map((entry: any) => entry.resource.id));
      next = page.link.find((link: any) => link.relation === 'next')?.url;
    }
    assert.deepEqual(seen, [...all].sort());
    assert.equal(pages, 3);
    const paged: string[] = [];
    next = `${fhirBase(t)}/Communication?_count=1&patient=${m.ada.id}&category=sms,email`;
    while (next) {
      const page: any = await ok(t.api.get(next.replace('http://localhost:80', '')));
      paged.push(...page.entry.map((entry: any) => entry.resource.id));
      next = page.link.find((link: any) => link.relation === 'next')?.url;
    }
    assert.deepEqual(paged, ids(m.smsIn, m.smsOut, m.emailIn));
  });

  test('a caller is served the sources its permissions read; none of them is 403; tenants apart; the access log', async () => {
    const t = await tenant();
    const other = await tenant();
    const m = await messages(t);
    const theirs = await messages(other);
    const bundle = (api: Api, query = '') => ok(api.get(`${fhirBase(t)}/Communication?_count=100${query}`));

    const smsReader = await t.apiWith(['SMS_READ']);
    assert.deepEqual(idsOf(await bundle(smsReader)), [m.smsIn.id, m.smsOut.id].sort());
    assert.equal((await bundle(smsReader, '&_summary=count')).total, 2);
    assert.equal((await ok(smsReader.get(`${fhirBase(t)}/Communication/${m.smsIn.id}`))).id, m.smsIn.id);
    // Another source's record is not there for it: the 404 of the one source it reads.
    assertOutcome(await smsReader.get(`${fhirBase(t)}/Communication/${m.chatText.id}`), 404, 'SMS_NOT_FOUND');
    const chatAndEmail = await t.apiWith(['CHAT_READ', 'EMAIL_READ']);
    assert.deepEqual(
      idsOf(await bundle(chatAndEmail)),
      [m.chatText, m.chatPhoto, m.emailIn, m.emailOut].map((message) => message.id).sort(),
    );
    assert.deepEqual(idsOf(await bundle(chatAndEmail, '&category=sms')), []);
    const none = await t.apiWith(['PATIENT_READ', 'TASK_READ']);
    assertOutcome(await none.get(`${fhirBase(t)}/Communication`), 403, 'ACCESS_DENIED');
    assertOutcome(await none.get(`${fhirBase(t)}/Communication?status=bogus`), 403, 'ACCESS_DENIED');
    assertOutcome(await none.get(`${fhirBase(t)}/Communication/${m.smsIn.id}`), 403, 'ACCESS_DENIED');

    // Another tenant's messages: never in a search, 404 by id.
    const mine = idsOf(await bundle(t.api));
    for (const message of [theirs.chatText, theirs.smsIn, theirs.emailIn]) {
      assert.ok(!mine.includes(message.id));
      assert.equal((await t.api.get(`${fhirBase(t)}/Communication/${message.id}`)).status, 404);
    }
    assert.equal(mine.length, 6);

    await ok(t.api.get(`${fhirBase(t)}/Communication/${m.emailIn.id}`));
    const log = await ok(t.api.get(`${t.admin}/access-log?size=100`));
    const fhirRecords = (log.data as any[]).filter((record) => record.operation.includes('/fhir/R4/Communication'));
    const [read, page] = fhirRecords;
    assert.deepEqual([read.resourceType, read.patientIds, read.recordIds], ['COMMUNICATION', [m.ada.id], [m.emailIn.id]]);
    assert.equal(page.resourceType, 'COMMUNICATION');
    assert.deepEqual([...page.patientIds].sort(), [m.ada.id, m.bo.id].sort());
  });

  test('the CapabilityStatement lists Communication once with every source’s parameters; the API document names the permissions', async () => {
    const t = await tenant();
    const capability = await ok(t.anonymous.get(`${fhirBase(t)}/metadata`));
    const communications = (capability.rest[0].resource as any[]).filter((resource) => resource.type === 'Communication');
    assert.equal(communications.length, 1);
    assert.deepEqual(communications[0].searchParam.map((param: any) => param.name).sort(), [
      '_id',
      '_lastUpdated',
      'category',
      'medium',
      'patient',
      'received',
      'sent',
      'status',
      'subject',
    ]);
    const document = await ok(t.anonymous.get('/openapi.json'));
    for (const path of [
      '/{tenantName}/{instanceName}/fhir/R4/Communication',
      '/{tenantName}/{instanceName}/fhir/R4/Communication/{id}',
    ]) {
      const operation = document.paths[path].get;
      assert.deepEqual([...operation['x-permission-any-of']].sort(), ['CHAT_READ', 'EMAIL_READ', 'SMS_READ'], path);
      assert.equal(operation['x-permission'], undefined, path);
      assert.match(operation.description, /Needs any of `CHAT_READ`, `EMAIL_READ`, `SMS_READ`/);
    }
    assert.equal(document.paths['/{tenantName}/{instanceName}/fhir/R4/Task'].get['x-permission'], 'TASK_READ');
  });
});
