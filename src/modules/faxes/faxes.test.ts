import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { multipart, sampleFile } from '../../test/files.ts';
import {
  assertCode,
  assertValidation,
  createPatient,
  createTestInstance,
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

  test("a patient's delete leaves the patient's faxes, unlinked, and removes the files of the patient's own records", async () => {
    const { t, url } = await setup();
    const patient = (await createPatient(t, { firstName: 'Gone', lastName: 'Soon' })).id;
    const created = await t.api.post(url, { subject: 'Referral', patientId: patient });
    assert.equal(created.status, 201, created.text);
    const withFile = await upload(t, `${url}/${created.body.id}`, [{ name: 'referral.pdf', content: sampleFile('pdf') }]);
    assert.equal(withFile.status, 200, withFile.text);
    assert.equal((await t.api.delete(`${t.base}/patients/${patient}`)).status, 200);
    const kept = await t.api.get(`${url}/${created.body.id}`);
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.patient, null);
    // The fax's files are the fax's (not the patient's): they stay with it.
    assert.equal(kept.body.files.length, 1);
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

describe("the sender: one of the instance's fax phones", () => {
  const faxLine = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e02', number: '+14155550102', capabilities: ['FAX' as const] };
  const textLine = {
    id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e03',
    number: '+14155550103',
    default: true,
    capabilities: ['SMS' as const, 'VOICE_CALL' as const],
  };
  /** No capabilities: every channel, as formations written before them. */
  const anyLine = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e04', number: '+14155550104' };
  const phones = [textLine, faxLine, anyLine];

  async function publish(t: TestTenant, instancePhones: unknown[]) {
    const current = (await t.api.get(`${t.base}/formations/current`)).body.formation;
    assert.equal((await t.api.put(`${t.base}/formations/draft`, { ...current, instancePhones })).status, 200);
    const published = await t.api.post(`${t.base}/formations/draft/publish`);
    assert.equal(published.status, 200, published.text);
  }

  test("create and PATCH take a fax phone's number only: another tenant's, another instance's, an SMS-only or an unknown one is 400", async () => {
    const t = await createTestTenant(app, testFormation({ instancePhones: phones }));
    const url = `${t.base}/faxes`;
    const live = await createTestInstance(
      t,
      'live',
      testFormation({ instancePhones: [{ id: faxLine.id, number: '+14155550105' }] }),
    );
    const other = await createTestTenant(app, testFormation({ instancePhones: [{ id: faxLine.id, number: '+14155550106' }] }));
    const refused = [
      ["another tenant's fax phone", '+14155550106'],
      ["another instance's fax phone", '+14155550105'],
      ['a phone without FAX', textLine.number],
      ['no phone of the instance', '+14155550199'],
    ] as const;
    for (const [label, faxNumber] of refused) {
      assertValidation(await t.api.post(url, { sender: { faxNumber } }), 'body.sender.faxNumber', label);
    }
    assert.equal((await t.api.get(url)).body.totalElements, 0, 'nothing was written');
    // Without a sender: the default among the fax phones, else the first of them.
    const draft = (await t.api.post(url, { receiver: { faxNumber: '+14155550160' } })).body;
    assert.equal(draft.fromNumber, faxLine.number);
    const fromAny = await t.api.post(url, { sender: { type: 'FAX_NUMBER', faxNumber: anyLine.number } });
    assert.equal(fromAny.status, 201, fromAny.text);
    assert.equal(fromAny.body.fromNumber, anyLine.number);

    const one = `${url}/${draft.id}`;
    for (const [label, faxNumber] of refused) {
      assertValidation(await t.api.patch(one, { sender: { faxNumber } }), 'body.sender.faxNumber', label);
    }
    const read = (await t.api.get(one)).body;
    assert.equal(read.fromNumber, faxLine.number, 'the refused changes wrote nothing');
    assert.equal(read.updatedAt, draft.updatedAt);
    const moved = await t.api.patch(one, { sender: { faxNumber: anyLine.number } });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.fromNumber, anyLine.number);
    // Other tenants and instances are untouched, and their own fax phones serve them.
    assert.equal((await live.api.post(`${live.base}/faxes`, {})).body.fromNumber, '+14155550105');
    assert.equal((await other.api.get(`${other.base}/faxes`)).body.totalElements, 0);
  });

  test('the send checks the sender again: once the formation takes FAX from it, 400 naming sender.faxNumber and nothing is sent', async () => {
    const t = await createTestTenant(app, testFormation({ instancePhones: phones }));
    const url = `${t.base}/faxes`;
    const draft = (await t.api.post(url, { receiver: { faxNumber: '+14155550160' }, sender: { faxNumber: faxLine.number } }))
      .body;
    const one = `${url}/${draft.id}`;
    assert.equal((await upload(t, one, [{ name: 'referral.pdf', content: sampleFile('pdf') }])).status, 200);
    await publish(t, [textLine, { ...faxLine, capabilities: ['SMS'] }, anyLine]);
    // The draft's sender sent back as read is kept (only a new one is checked)...
    const echoed = await t.api.patch(one, { subject: 'Referral', sender: draft.sender, receiver: draft.receiver });
    assert.equal(echoed.status, 200, echoed.text);
    assert.equal(echoed.body.fromNumber, faxLine.number);
    // ...and the send refuses it.
    const refused = await t.api.post(`${one}/send`);
    assertValidation(refused, 'sender.faxNumber');
    assert.equal((await t.api.get(one)).body.status, 'DRAFT');
    await app.jobs.drain();
    assert.equal((await t.api.get(`${t.base}/sandbox/outbox?channel=FAX`)).body.totalElements, 0, 'nothing was sent');

    // A draft without a sender goes from the default fax phone, chosen at the send.
    const cleared = await t.api.patch(one, { sender: null });
    assert.equal(cleared.body.fromNumber, null);
    const sent = await t.api.post(`${one}/send`);
    assert.equal(sent.status, 200, sent.text);
    assert.equal(sent.body.status, 'QUEUED');
    assert.equal(sent.body.fromNumber, anyLine.number);

    // No fax phone at all: a draft has no sender, and cannot be sent.
    await publish(t, [textLine]);
    const lone = (await t.api.post(url, { receiver: { faxNumber: '+14155550160' } })).body;
    assert.equal(lone.fromNumber, null);
    assert.equal((await upload(t, `${url}/${lone.id}`, [{ name: 'a.pdf', content: sampleFile('pdf') }])).status, 200);
    assertValidation(await t.api.post(`${url}/${lone.id}/send`), 'sender.faxNumber');
  });
});
