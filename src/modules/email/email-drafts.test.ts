import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
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

/** Email drafts: /patients/{patientId}/email-drafts, with a contact's id in the patient's place (002). */

const app = await startApp();

const pdts: NonNullable<Formation['pdts']> = [
  { name: 'caregiver', title: 'Caregiver', contactable: true, fields: [{ name: 'pdtf-name', type: 'text' }] },
];

async function setup(): Promise<{ t: TestTenant; patient: string; url: string }> {
  const t = await createTestTenant(app, testFormation({ pdts }));
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' })).id;
  return { t, patient, url: `${t.base}/patients/${patient}/email-drafts` };
}

describe('email drafts', () => {
  test('create (201, WAITING), read, list newest first, PATCH and DELETE', async () => {
    const { t, patient, url } = await setup();
    const created = await t.api.post(url, { subject: 'Your visit', body: 'See you Monday', id: randomUUID(), status: 'SENT' });
    assert.equal(created.status, 201, created.text);
    const draft = created.body;
    assert.equal(draft.status, 'WAITING');
    assert.equal(draft.priority, 'NO_PRIORITY');
    assert.equal(draft.source, 'USER');
    assert.equal(draft.bodyType, 'PLAIN_TEXT');
    assert.equal(draft.secure, false);
    assert.equal(draft.receiver, patient);
    assert.equal(draft.receiverName, 'Pat Lee');
    assert.equal(draft.patientEmail, 'pat@example.org');
    assert.equal(draft.sender, t.adminClient.id);
    assert.deepEqual(draft.attachments, []);
    const second = (await t.api.post(url, { subject: 'Second' })).body;

    const list = await t.api.get(url);
    assert.deepEqual(Object.keys(list.body).sort(), pageObjectKeys);
    assert.deepEqual(
      list.body.content.map((d: { id: string }) => d.id),
      [second.id, draft.id],
    );
    const oldest = await t.api.get(`${url}?sort=createdAt,asc`);
    assert.equal(oldest.body.content[0].id, draft.id);
    assertCode(await t.api.get(`${url}?sort=subject`), 400, 'INVALID_SORT');

    const patched = await t.api.patch(`${url}/${draft.id}`, { subject: 'Moved', secure: true, starred: true });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.subject, 'Moved');
    assert.equal(patched.body.body, 'See you Monday');
    assert.equal(patched.body.secure, true);
    assertValidation(await t.api.patch(`${url}/${draft.id}`, { patientEmail: 'not an address' }), 'body.patientEmail');

    const removed = await t.api.delete(`${url}/${draft.id}`);
    assert.equal(removed.status, 200);
    assert.equal(removed.text, '');
    assertCode(await t.api.get(`${url}/${draft.id}`), 404, 'EMAIL_DRAFT_NOT_FOUND');
    assertCode(await t.api.get(`${t.base}/patients/${randomUUID()}/email-drafts`), 404, 'PATIENT_NOT_FOUND');
  });

  test('an HTML body is sanitized before it is stored', async () => {
    const { t, url } = await setup();
    const created = await t.api.post(url, {
      bodyType: 'HTML',
      body: '<p onclick="steal()">Hi <b>Pat</b><script>alert(1)</script><a href="javascript:evil()">x</a><img src="https://x.example/a.png"></p>',
    });
    assert.equal(created.body.body, '<p>Hi <b>Pat</b><a>x</a><img src="https://x.example/a.png" /></p>');
    assertValidation(await t.api.post(url, { bodyType: 'RTF' }));
  });

  test("a contact's id stands in the patient's place, and the contact is the receiver", async () => {
    const { t, patient, url } = await setup();
    const record = await t.api.post(`${t.base}/pdts/caregiver`, { 'pdtf-name': 'Ann' });
    assert.equal(record.status, 201, record.text);
    const contact = await t.api.post(`${t.base}/patients/${patient}/contacts`, {
      name: 'Ann Lee',
      email: 'ann@example.org',
      pdtRecordId: record.body.id,
    });
    assert.equal(contact.status, 200, contact.text);
    const contactUrl = `${t.base}/patients/${contact.body.id}/email-drafts`;
    const draft = await t.api.post(contactUrl, { subject: 'For Ann' });
    assert.equal(draft.status, 201, draft.text);
    assert.equal(draft.body.receiver, contact.body.id);
    assert.equal(draft.body.receiverName, 'Ann Lee');
    assert.equal(draft.body.patientEmail, 'ann@example.org');
    // The patient's drafts and the contact's are apart.
    assert.equal((await t.api.get(url)).body.totalElements, 0);
    assert.equal((await t.api.get(contactUrl)).body.totalElements, 1);
    assertCode(await t.api.get(`${url}/${draft.body.id}`), 404, 'EMAIL_DRAFT_NOT_FOUND');
  });

  test('files attach in attachmentsAsFiles parts; the draft comes back with linked entries', async () => {
    const { t, url } = await setup();
    const draft = (await t.api.post(url, { subject: 'Results' })).body;
    const form = multipart([
      { field: 'attachmentsAsFiles', name: 'lab.pdf', content: sampleFile('pdf'), type: 'application/pdf' },
    ]);
    const added = await t.api.request('POST', `${url}/${draft.id}`, form.body, form.headers);
    assert.equal(added.status, 200, added.text);
    assert.equal(added.body.attachments.length, 1);
    assert.equal(added.body.attachments[0].originalName, 'lab.pdf');
    assert.match(added.body.attachments[0].url, /expires=/);
    const wrongPart = multipart([{ name: 'lab.pdf', content: sampleFile('pdf'), type: 'application/pdf' }]);
    assertCode(await t.api.request('POST', `${url}/${draft.id}`, wrongPart.body, wrongPart.headers), 400, 'NO_FILES');
    const missing = multipart([{ field: 'attachmentsAsFiles', name: 'a.pdf', content: sampleFile('pdf') }]);
    assertCode(
      await t.api.request('POST', `${url}/${randomUUID()}`, missing.body, missing.headers),
      404,
      'EMAIL_DRAFT_NOT_FOUND',
    );
    await t.api.delete(`${url}/${draft.id}`);
    const files = await app.services.db.selectFrom('files').select('id').where('tenant_id', '=', t.tenant.id).execute();
    assert.equal(files.length, 0);
  });

  test("another tenant's drafts are not found", async () => {
    const a = await setup();
    const b = await setup();
    const draft = (await a.t.api.post(a.url, { subject: 'A' })).body;
    assertCode(await b.t.api.get(`${b.url}/${draft.id}`), 404, 'EMAIL_DRAFT_NOT_FOUND');
    assertCode(await b.t.api.get(`${b.t.base}/patients/${a.patient}/email-drafts/${draft.id}`), 404, 'PATIENT_NOT_FOUND');
    assertCode(await b.t.api.get(`${a.url}/${draft.id}`), 403, 'TENANT_ACCESS_DENIED');
  });
});
