import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { multipart, sampleFile } from '../../test/files.ts';
import {
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  pageObjectKeys,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/** Faxes (002 "Fax" endpoints, DECISIONS §8) through the sandbox. */

const app = await startApp();
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };

async function setup() {
  const t = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
  return { t, url: `${t.base}/faxes` };
}

function upload(t: TestTenant, url: string, files: { name: string; content: Buffer }[]) {
  const form = multipart(files);
  return t.api.request('POST', `${url}/files`, form.body, form.headers);
}

describe('faxes', () => {
  test('a draft, its files, and the send: DRAFT → QUEUED → SENDING → DELIVERED, through the sandbox', async () => {
    const { t, url } = await setup();
    const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
    const created = await t.api.post(url, {
      subject: 'Referral',
      receiver: { type: 'FAX_NUMBER', faxNumber: '+14155550160' },
      patientId: patient,
      status: 'SENT',
    });
    assert.equal(created.status, 201, created.text);
    const fax = created.body;
    assert.equal(fax.status, 'DRAFT');
    assert.equal(fax.direction, 'OUT');
    assert.equal(fax.fromNumber, phone.number);
    assert.deepEqual(fax.sender, { type: 'FAX_NUMBER', faxNumber: phone.number });
    assert.deepEqual(fax.receiver, { type: 'FAX_NUMBER', faxNumber: '+14155550160' });
    assert.deepEqual(fax.patient, { id: patient, name: 'Pat Lee' });
    assert.equal(fax.highQuality, false);
    assert.equal(fax.reviewed, null);

    const one = `${url}/${fax.id}`;
    assertCode(await t.api.post(`${one}/send`), 400, 'FAX_FILES_MISSING');
    const withFiles = await upload(t, one, [
      { name: 'referral.pdf', content: sampleFile('pdf') },
      { name: 'scan.png', content: sampleFile('png') },
    ]);
    assert.equal(withFiles.status, 200, withFiles.text);
    assert.equal(withFiles.body.files.length, 2);
    const removed = await t.api.delete(`${one}/files/${withFiles.body.files[1].id}`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal((await t.api.get(one)).body.files.length, 1);

    const patched = await t.api.patch(one, { subject: 'Urgent referral', highQuality: true });
    assert.equal(patched.body.subject, 'Urgent referral');
    assert.equal(patched.body.highQuality, true);

    const sent = await t.api.post(`${one}/send`);
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.status, 'QUEUED');
    assert.equal(sent.body.sentBy, t.adminClient.id);
    assertCode(await t.api.post(`${one}/send`), 409, 'FAX_NOT_DRAFT');
    assertCode(await upload(t, one, [{ name: 'late.pdf', content: sampleFile('pdf') }]), 409, 'FAX_NOT_DRAFT');
    assertCode(await t.api.patch(one, { highQuality: false }), 409, 'FAX_NOT_DRAFT');
    assertCode(await t.api.delete(one), 409, 'FAX_IN_FLIGHT');

    await app.jobs.drain();
    const sending = (await t.api.get(one)).body;
    assert.equal(sending.status, 'SENDING');
    assert.ok(sending.faxId);
    const [message] = (await t.api.get(`${t.base}/sandbox/outbox?channel=FAX`)).body.content;
    assert.equal(message.reference, fax.id);
    assert.deepEqual(message.attachmentNames, ['referral.pdf']);
    await t.api.post(`${t.base}/sandbox/outbox/${message.id}/deliver`);
    assert.equal((await t.api.get(one)).body.status, 'DELIVERED');
    assert.equal((await t.api.delete(one)).status, 200);
    assertCode(await t.api.get(one), 404, 'FAX_NOT_FOUND');
  });

  test('a received fax: RECEIVED, not reviewed, its document kept; reviewed by PATCH; the list and its filters', async () => {
    const { t, url } = await setup();
    const received = await t.api.post(`${t.base}/sandbox/inbound`, {
      channel: 'FAX',
      from: '+14155550170',
      to: phone.number,
      subject: 'Lab report',
    });
    assert.equal(received.status, 201, received.text);
    await app.jobs.drain();
    const one = `${url}/${received.body.id}`;
    const fax = (await t.api.get(one)).body;
    assert.equal(fax.status, 'RECEIVED');
    assert.equal(fax.direction, 'IN');
    assert.equal(fax.reviewed, false);
    assert.equal(fax.files.length, 1);
    assert.equal(fax.files[0].contentType, 'application/pdf');
    assertValidation(await t.api.patch(one, { patientId: (await createPatient(t)).id }), 'body.patientId');
    const reviewed = await t.api.patch(one, { reviewed: true });
    assert.equal(reviewed.body.reviewed, true);

    const draft = (await t.api.post(url, { subject: 'Cover letter', receiver: { faxNumber: '+14155550161' } })).body;
    assertValidation(await t.api.patch(`${url}/${draft.id}`, { reviewed: true }), 'body.reviewed');
    const list = await t.api.get(url);
    assert.deepEqual(Object.keys(list.body).sort(), pageObjectKeys);
    const ids = async (query: string) => (await t.api.get(`${url}?${query}`)).body.content.map((f: { id: string }) => f.id);
    assert.deepEqual(await ids(''), [draft.id, fax.id]);
    assert.deepEqual(await ids('direction=IN'), [fax.id]);
    assert.deepEqual(await ids('statuses=DRAFT,QUEUED'), [draft.id]);
    assert.deepEqual(await ids('fromNumber=14155550170'), [fax.id]);
    assert.deepEqual(await ids('toNumber=%2B14155550161'), [draft.id]);
    assert.deepEqual(await ids('subject=LAB'), [fax.id]);
    assert.deepEqual(await ids('reviewed=true'), [fax.id]);
    assert.deepEqual(await ids(`receivedAtAfter=${encodeURIComponent(fax.receivedAt)}`), [fax.id]);
    assert.deepEqual(await ids('createdAtBefore=2000-01-01T00:00:00Z'), []);
    assertValidation(await t.api.get(`${url}?fromNumber=abc`));
    assertValidation(await t.api.get(`${url}?statuses=LOST`));
  });

  test('file limits, 400s, 403, 404, and another tenant sees none of it', async () => {
    const { t, url } = await setup();
    const draft = (await t.api.post(url, {})).body;
    const one = `${url}/${draft.id}`;
    assertCode(await t.api.post(`${one}/send`), 400, 'FAX_RECEIVER_MISSING');
    assertCode(await upload(t, one, [{ name: 'virus.exe', content: Buffer.from('MZ') }]), 400, 'FILE_TYPE_NOT_ALLOWED');
    assertCode(await upload(t, one, [{ name: 'fake.pdf', content: sampleFile('png') }]), 400, 'FILE_CONTENT_MISMATCH');
    const ten = Array.from({ length: 10 }, (_, index) => ({ name: `page-${index}.pdf`, content: sampleFile('pdf') }));
    assert.equal((await upload(t, one, ten)).status, 200);
    assertCode(await upload(t, one, [{ name: 'eleventh.pdf', content: sampleFile('pdf') }]), 400, 'TOO_MANY_FILES');
    assert.equal((await t.api.get(one)).body.files.length, 10);
    assertValidation(await t.api.post(url, { receiver: { faxNumber: '4155550160' } }));
    assertCode(await t.api.post(url, { patientId: crypto.randomUUID() }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(`${url}/${crypto.randomUUID()}`), 404, 'FAX_NOT_FOUND');
    assertCode(await t.api.delete(`${one}/files/${crypto.randomUUID()}`), 404, 'FILE_NOT_FOUND');

    const reader = await t.apiWith(['FAX_READ']);
    assert.equal((await reader.get(one)).status, 200);
    assertCode(await reader.post(url, {}), 403, 'ACCESS_DENIED');
    assertCode(await reader.post(`${one}/send`), 403, 'ACCESS_DENIED');
    assertCode(await (await t.apiWith(['SMS_READ'])).get(url), 403, 'ACCESS_DENIED');

    const other = await setup();
    assertCode(await other.t.api.get(`${other.url}/${draft.id}`), 404, 'FAX_NOT_FOUND');
    assertCode(await other.t.api.patch(`${other.url}/${draft.id}`, { subject: 'x' }), 404, 'FAX_NOT_FOUND');
    assertCode(await other.t.api.delete(`${other.url}/${draft.id}`), 404, 'FAX_NOT_FOUND');
    assert.equal((await other.t.api.get(other.url)).body.totalElements, 0);
  });
});
