import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
import { ProviderError } from '../../providers/channels.ts';
import type { EmailDriver } from '../../providers/email/driver.ts';
import { emailSlot } from '../../providers/email/email.ts';
import { TestClock } from '../../test/clock.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import {
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  isoMillis,
  pageObjectKeys,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';
import { SEND_ATTEMPTS } from './send.ts';

/** Emails: sending drafts through the sandbox, the list and its filters, inbound emails, statuses. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });

const pdts: NonNullable<Formation['pdts']> = [
  { name: 'caregiver', title: 'Caregiver', contactable: true, fields: [{ name: 'pdtf-name', type: 'text' }] },
];

async function setup() {
  const t = await createTestTenant(app, testFormation({ pdts }));
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'Pat@Example.org' })).id;
  return { t, patient, drafts: `${t.base}/patients/${patient}/email-drafts`, emails: `${t.base}/patients/${patient}/emails` };
}

async function send(t: TestTenant, drafts: string, draft: Record<string, unknown>) {
  const created = await t.api.post(drafts, draft);
  assert.equal(created.status, 201, created.text);
  const sent = await t.api.post(`${drafts}/${created.body.id}/send`);
  assert.equal(sent.status, 200, sent.text);
  return sent.body;
}

async function outbox(t: TestTenant, query = '') {
  const response = await t.api.get(`${t.base}/sandbox/outbox${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.content;
}

async function eventsOf(t: TestTenant, recordId: string) {
  const rows = await app.services.db
    .selectFrom('events')
    .select('event_subtype')
    .where('tenant_id', '=', t.tenant.id)
    .where('record_id', '=', recordId)
    .orderBy('seq')
    .execute();
  return rows.map((row) => row.event_subtype);
}

describe('sending a draft', () => {
  test('the draft becomes an email, queued; the job hands it to the sandbox; delivered when the sandbox is told', async () => {
    const { t, patient, drafts, emails } = await setup();
    const draft = (await t.api.post(drafts, { subject: 'Your results', body: 'All clear', starred: true })).body;
    const pdf = multipart([{ name: 'results.pdf', content: sampleFile('pdf'), field: 'attachmentsAsFiles' }]);
    const withFile = await t.api.request('POST', `${drafts}/${draft.id}`, pdf.body, pdf.headers);
    assert.equal(withFile.status, 200, withFile.text);

    const sent = await t.api.post(`${drafts}/${draft.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    const email = sent.body;
    assert.equal(email.status, 'ACCEPTED');
    assert.equal(email.direction, 'OUT');
    assert.equal(email.sendNow, true);
    assert.equal(email.subject, 'Your results');
    assert.equal(email.body, 'All clear');
    assert.equal(email.to, 'Pat@Example.org');
    assert.equal(email.from, 'care-team@sandbox.invalid');
    assert.equal(email.receiver, patient);
    assert.equal(email.receiverType, 'PATIENT');
    assert.equal(email.receiverName, 'Pat Lee');
    assert.equal(email.patientInfo, 'Pat Lee');
    assert.equal(email.sender, t.adminClient.id);
    assert.equal(email.starred, true);
    assert.equal(email.externalId, null);
    assert.equal(email.sentAt, null);
    assert.match(email.date, isoMillis);
    assert.equal(email.date, '2026-06-01T12:00:00.000Z');
    assert.deepEqual(
      email.attachments.map((file: { originalName: string }) => file.originalName),
      ['results.pdf'],
    );
    // The draft is gone; its file is the email's now.
    assertCode(await t.api.get(`${drafts}/${draft.id}`), 404, 'EMAIL_DRAFT_NOT_FOUND');
    assert.equal((await t.api.get(`${t.base}/files/${email.attachments[0].id}`)).status, 200);

    // One write: the draft's events and the email's (read before the job queue's relay takes them).
    assert.deepEqual(await eventsOf(t, draft.id), ['EMAIL_DRAFT_CREATED', 'EMAIL_DRAFT_UPDATED', 'EMAIL_DRAFT_DELETED']);
    assert.deepEqual(await eventsOf(t, email.id), ['EMAIL_CREATED']);
    // Nothing reached the sandbox until the job ran.
    assert.deepEqual(await outbox(t), []);
    await app.jobs.drain();
    const [message] = await outbox(t);
    assert.equal(message.channel, 'EMAIL');
    assert.equal(message.reference, email.id);
    assert.equal(message.to, 'Pat@Example.org');
    assert.equal(message.subject, 'Your results');
    assert.equal(message.body, 'All clear');
    assert.deepEqual(message.attachmentNames, ['results.pdf']);
    assert.equal(message.status, 'ACCEPTED');

    const accepted = (await t.api.get(`${emails}/${email.id}`)).body;
    assert.equal(accepted.status, 'ACCEPTED');
    assert.equal(accepted.externalId, message.id);
    assert.equal(accepted.sentAt, '2026-06-01T12:00:00.000Z');

    assert.deepEqual(await eventsOf(t, email.id), []);
    const delivered = await t.api.post(`${t.base}/sandbox/outbox/${message.id}/deliver`);
    assert.equal(delivered.status, 200, delivered.text);
    assert.equal(delivered.body.status, 'DELIVERED');
    assert.equal((await t.api.get(`${emails}/${email.id}`)).body.status, 'DELIVERED');
    assertCode(await t.api.post(`${t.base}/sandbox/outbox/${message.id}/bounce`), 409, 'SANDBOX_MESSAGE_SETTLED');

    assert.deepEqual(await eventsOf(t, email.id), ['EMAIL_UPDATED', 'EMAIL_STATUS_CHANGED']);
  });

  test('bounced and failed in the sandbox: REJECTED and FAILED with the error', async () => {
    const { t, drafts, emails } = await setup();
    const bounced = await send(t, drafts, { subject: 'One' });
    const failed = await send(t, drafts, { subject: 'Two' });
    await app.jobs.drain();
    const byReference = new Map((await outbox(t)).map((m: { reference: string; id: string }) => [m.reference, m.id]));
    const bounce = await t.api.post(`${t.base}/sandbox/outbox/${byReference.get(bounced.id)}/bounce`, {
      error: '550 no such mailbox',
    });
    assert.equal(bounce.body.status, 'BOUNCED');
    await t.api.post(`${t.base}/sandbox/outbox/${byReference.get(failed.id)}/fail`);
    const one = (await t.api.get(`${emails}/${bounced.id}`)).body;
    assert.equal(one.status, 'REJECTED');
    assert.equal(one.errorMessage, '550 no such mailbox');
    const two = (await t.api.get(`${emails}/${failed.id}`)).body;
    assert.equal(two.status, 'FAILED');
    assert.equal(two.errorMessage, 'Failed in the sandbox');
  });

  test('scheduledAt ahead: SCHEDULED, handed over only when its time comes; a time past sends at once', async () => {
    const { t, drafts, emails } = await setup();
    const later = await send(t, drafts, { subject: 'Reminder', scheduledAt: '2026-06-02T09:00:00Z' });
    assert.equal(later.status, 'SCHEDULED');
    assert.equal(later.sendNow, false);
    assert.equal(later.date, '2026-06-02T09:00:00.000Z');
    const past = await send(t, drafts, { subject: 'Late', scheduledAt: '2026-05-01T09:00:00Z' });
    assert.equal(past.status, 'ACCEPTED');
    await app.jobs.drain();
    assert.deepEqual(
      (await outbox(t)).map((m: { reference: string }) => m.reference),
      [past.id],
    );
    clock.set('2026-06-02T09:00:01Z');
    try {
      await app.jobs.drain();
    } finally {
      clock.set('2026-06-01T12:00:00.000Z');
    }
    assert.equal((await outbox(t)).length, 2);
    const sent = (await t.api.get(`${emails}/${later.id}`)).body;
    assert.equal(sent.status, 'ACCEPTED');
    assert.equal(sent.sentAt, '2026-06-02T09:00:01.000Z');
  });

  test('a draft with no address is a 400 and stays; a contact draft goes to the contact', async () => {
    const { t, patient, drafts } = await setup();
    const pdt = (await t.api.post(`${t.base}/pdts/caregiver`, { 'pdtf-name': 'Sam' })).body;
    const contact = (
      await t.api.post(`${t.base}/patients/${patient}/contacts`, {
        pdtRecordId: pdt.id,
        name: 'Sam Lee',
        email: 'sam@example.org',
        relation: 'SON',
      })
    ).body;
    const bare = (await t.api.post(drafts, { subject: 'x', patientEmail: null })).body;
    assertCode(await t.api.post(`${drafts}/${bare.id}/send`), 400, 'EMAIL_ADDRESS_MISSING');
    assert.equal((await t.api.get(`${drafts}/${bare.id}`)).status, 200);

    const contactDrafts = `${t.base}/patients/${contact.id}/email-drafts`;
    const email = await send(t, contactDrafts, { subject: 'For Sam' });
    assert.equal(email.receiver, contact.id);
    assert.equal(email.receiverType, 'CONTACT');
    assert.equal(email.to, 'sam@example.org');
    assert.equal((await t.api.get(`${t.base}/patients/${contact.id}/emails/${email.id}`)).status, 200);
    assertCode(await t.api.get(`${t.base}/patients/${patient}/emails/${email.id}`), 404, 'EMAIL_NOT_FOUND');
  });
});

describe('the email list', () => {
  test('page object newest first, every filter, sort, 400s and 404s', async () => {
    const { t, patient, drafts, emails } = await setup();
    const first = await send(t, drafts, { subject: 'Lab results ready', body: 'Your potassium is fine' });
    clock.advance(60_000);
    const second = await send(t, drafts, { subject: 'Appointment', body: 'Monday at 10', starred: true });
    clock.advance(60_000);
    await t.api.post(`${t.base}/sandbox/inbound`, {
      channel: 'EMAIL',
      from: 'pat@example.org',
      to: 'care-team@sandbox.invalid',
      subject: 'Re: Appointment',
      message: 'Can we move it?',
    });
    clock.set('2026-06-01T12:00:00.000Z');
    await app.jobs.drain();

    const all = await t.api.get(emails);
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(Object.keys(all.body).sort(), pageObjectKeys);
    assert.equal(all.body.totalElements, 3);
    const [inbound] = all.body.content;
    assert.equal(inbound.direction, 'IN');
    assert.equal(inbound.status, 'DELIVERED');
    assert.equal(inbound.sender, patient);
    assert.equal(inbound.senderType, 'PATIENT');
    assert.equal(inbound.receiverType, 'CARE_TEAM');
    assert.equal(inbound.body, 'Can we move it?');
    assert.equal(inbound.receivedAt, '2026-06-01T12:02:00.000Z');
    assert.deepEqual(
      all.body.content.map((e: { id: string }) => e.id),
      [inbound.id, second.id, first.id],
    );

    const ids = async (query: string) => {
      const response = await t.api.get(`${emails}?${query}`);
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      return response.body.content.map((e: { id: string }) => e.id);
    };
    assert.deepEqual(await ids('direction=OUT&sort=date,asc'), [first.id, second.id]);
    assert.deepEqual(await ids('status=DELIVERED'), [inbound.id]);
    assert.deepEqual(await ids('status=ACCEPTED,DELIVERED&direction=IN'), [inbound.id]);
    assert.deepEqual(await ids('starred=TRUE'), [second.id]);
    assert.deepEqual(await ids('search=POTASSIUM'), [first.id]);
    assert.deepEqual(await ids('query=appointment'), [inbound.id, second.id]);
    assert.deepEqual(await ids('email=PAT@EXAMPLE.ORG'), [inbound.id, second.id, first.id]);
    assert.deepEqual(await ids('from=pat@example.org'), [inbound.id]);
    assert.deepEqual(await ids('to=care-team@sandbox.invalid'), [inbound.id]);
    assert.deepEqual(await ids(`senderId=${patient}`), [inbound.id]);
    assert.deepEqual(await ids(`receiverId=${patient}`), [second.id, first.id]);
    assert.deepEqual(await ids('receiverName=pat%20l'), [second.id, first.id]);
    assert.deepEqual(await ids('senderName=API_CLIENT'), [second.id, first.id]);
    assert.deepEqual(await ids('dateAfter=2026-06-01T12:01:00Z&dateBefore=2026-06-01T12:02:00Z'), [second.id]);
    assert.deepEqual(await ids('search=100%25'), []);
    assert.deepEqual(await ids('page=1&size=2'), [first.id]);
    assert.deepEqual(await ids('sort=createdAt,asc&size=1'), [first.id]);

    assertValidation(await t.api.get(`${emails}?status=SENT`));
    assertValidation(await t.api.get(`${emails}?direction=SIDEWAYS`));
    assertValidation(await t.api.get(`${emails}?dateAfter=yesterday`));
    assertCode(await t.api.get(`${emails}?sort=subject`), 400, 'INVALID_SORT');
    assertCode(await t.api.get(`${t.base}/patients/${crypto.randomUUID()}/emails`), 404, 'PATIENT_NOT_FOUND');
    const missing = await t.api.get(`${emails}/${crypto.randomUUID()}`);
    assertCode(missing, 404, 'EMAIL_NOT_FOUND');
    assert.equal(missing.body[0].details.patientId, patient);
  });

  test('permissions, and another tenant sees none of it', async () => {
    const { t, drafts, emails } = await setup();
    const email = await send(t, drafts, { subject: 'Private' });
    const reader = await t.apiWith(['EMAIL_READ']);
    assert.equal((await reader.get(`${emails}/${email.id}`)).status, 200);
    const draft = (await t.api.post(drafts, { subject: 'Another' })).body;
    assertCode(await reader.post(`${drafts}/${draft.id}/send`), 403, 'ACCESS_DENIED');
    assertCode(await (await t.apiWith(['PATIENT_READ'])).get(emails), 403, 'ACCESS_DENIED');
    assertCode(await t.anonymous.get(emails), 401, 'NOT_VALID_JSON_WEB_TOKEN');
    assertCode(await reader.get(`${t.base}/sandbox/outbox`), 403, 'ACCESS_DENIED');

    const other = await createTestTenant(app, testFormation({ pdts }));
    const foreign = `${other.base}/patients/${email.receiver}/emails`;
    assertCode(await other.api.get(foreign), 404, 'PATIENT_NOT_FOUND');
    assertCode(
      await other.api.post(`${other.base}/patients/${email.receiver}/email-drafts/${draft.id}/send`),
      404,
      'PATIENT_NOT_FOUND',
    );
    await app.jobs.drain();
    const [message] = await outbox(t);
    assertCode(await other.api.post(`${other.base}/sandbox/outbox/${message.id}/deliver`), 404, 'SANDBOX_MESSAGE_NOT_FOUND');
    assert.deepEqual(await outbox(other), []);
  });
});

describe('inbound email', () => {
  test("lands on the patient whose address it is from, a contact's patient, or UNRECOGNISED with none", async () => {
    const { t, patient } = await setup();
    const pdt = (await t.api.post(`${t.base}/pdts/caregiver`, { 'pdtf-name': 'Sam' })).body;
    const contact = (
      await t.api.post(`${t.base}/patients/${patient}/contacts`, {
        pdtRecordId: pdt.id,
        name: 'Sam Lee',
        email: 'Sam@Example.org',
        relation: 'SON',
      })
    ).body;
    const inbound = (body: Record<string, unknown>) =>
      t.api.post(`${t.base}/sandbox/inbound`, { channel: 'EMAIL', to: 'care@clinic.example', ...body });

    const fromContact = await inbound({ from: 'sam@example.org', subject: 'Mum', message: 'She is better' });
    assert.equal(fromContact.status, 201, fromContact.text);
    assert.equal(fromContact.body.patientId, patient);
    assert.equal(fromContact.body.status, 'DELIVERED');
    const onContact = (await t.api.get(`${t.base}/patients/${contact.id}/emails/${fromContact.body.id}`)).body;
    assert.equal(onContact.sender, contact.id);
    assert.equal(onContact.senderType, 'CONTACT');
    assert.equal(onContact.senderName, 'Sam Lee');

    const stranger = await inbound({ from: 'who@elsewhere.example', message: 'Hello?' });
    assert.equal(stranger.body.status, 'UNRECOGNISED');
    assert.equal(stranger.body.patientId, null);
    const row = await app.services.db
      .selectFrom('emails')
      .selectAll()
      .where('tenant_id', '=', t.tenant.id)
      .where('id', '=', stranger.body.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'UNRECOGNISED');
    assert.equal(row.patient_id, null);
    assert.deepEqual(await eventsOf(t, stranger.body.id), ['EMAIL_CREATED']);

    assertValidation(await inbound({ from: 'not an address' }), 'body.from');
    assertValidation(await inbound({ channel: 'CARRIER_PIGEON', from: 'a@b.example' }));
  });
});

describe('providers that fail', () => {
  /** A driver whose sends fail as it is told. */
  function failing(permanent: boolean) {
    const driver: EmailDriver & { calls: number } = {
      calls: 0,
      from: { address: 'care@clinic.example', name: 'Care' },
      inboundSecret: null,
      async send() {
        driver.calls += 1;
        throw new ProviderError('SMTP_EENVELOPE', permanent ? '550 5.1.1 unknown user' : '451 try later', permanent);
      },
    };
    return driver;
  }

  test('a permanent refusal is REJECTED at once; a passing one is retried, then FAILED', async () => {
    for (const permanent of [true, false]) {
      const driver = failing(permanent);
      const own = await startApp({}, { clock, providers: new Map([[emailSlot, driver]]) });
      const t = await createTestTenant(own);
      const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' })).id;
      const drafts = `${t.base}/patients/${patient}/email-drafts`;
      const draft = (await t.api.post(drafts, { subject: 'x' })).body;
      const email = (await t.api.post(`${drafts}/${draft.id}/send`)).body;
      assert.equal(email.from, 'care@clinic.example');
      const url = `${t.base}/patients/${patient}/emails/${email.id}`;
      try {
        await own.jobs.drain();
        if (permanent) {
          assert.equal(driver.calls, 1);
        } else {
          const waiting = (await t.api.get(url)).body;
          assert.equal(waiting.status, 'ACCEPTED');
          assert.equal(waiting.errorMessage, '451 try later');
          for (let attempt = 2; attempt <= SEND_ATTEMPTS; attempt += 1) {
            clock.advance(2 * 60 * 60_000);
            await own.jobs.drain();
          }
          assert.equal(driver.calls, SEND_ATTEMPTS);
        }
      } finally {
        clock.set('2026-06-01T12:00:00.000Z');
      }
      const settled = (await t.api.get(url)).body;
      assert.equal(settled.status, permanent ? 'REJECTED' : 'FAILED');
      assert.equal(settled.errorMessage, permanent ? '550 5.1.1 unknown user' : '451 try later');
      // The sandbox's routes do not exist for a channel another driver carries.
      assertCode(await t.api.get(`${t.base}/sandbox/outbox?channel=EMAIL`), 404, 'SANDBOX_NOT_IN_USE');
    }
  });
});
