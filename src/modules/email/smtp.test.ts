import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { multipart, sampleFile } from '../../test/files.ts';
import { createPatient, createTestTenant, startApp, type TestApp, type TestTenant } from '../../test/harness.ts';

/**
 * The SMTP driver end to end: a real SMTP server (smtp-server) on a loopback port, with STARTTLS
 * and AUTH; what arrived read back with mailparser.
 */

const received: ParsedMail[] = [];
const relay = new SMTPServer({
  // Its own self-signed certificate: STARTTLS is offered, and AUTH only after it.
  allowInsecureAuth: false,
  logger: false,
  // Closing waits this long for Cairn's pooled connections before it cuts them (they close with their app).
  closeTimeout: 200,
  onAuth(auth, _session, callback) {
    if (auth.username === 'cairn' && auth.password === 'relay-password') callback(null, { user: 'cairn' });
    else callback(new Error('Invalid username or password'));
  },
  onRcptTo(address, _session, callback) {
    if (address.address.startsWith('nobody@')) {
      callback(Object.assign(new Error('5.1.1 No such mailbox'), { responseCode: 550 }));
    } else callback();
  },
  onData(stream, _session, callback) {
    simpleParser(stream).then(
      (mail) => {
        received.push(mail);
        callback();
      },
      (error: Error) => callback(error),
    );
  },
});
await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
const port = (relay.server.address() as AddressInfo).port;
after(() => new Promise<void>((resolve) => relay.close(resolve)));

const smtp = {
  driver: 'smtp',
  options: {
    host: 'localhost',
    port,
    requireTLS: true,
    // The test relay's certificate is its own, self-signed.
    tlsRejectUnauthorized: false,
    user: 'cairn',
    password: 'relay-password',
    from: 'care@clinic.example',
    fromName: 'Clinic Care Team',
  },
};

async function tenantOn(app: TestApp): Promise<{ t: TestTenant; drafts: string; emails: string }> {
  const t = await createTestTenant(app);
  const configured = await t.api.put(`${t.admin}/providers/email`, smtp);
  assert.equal(configured.status, 200, configured.text);
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' })).id;
  return { t, drafts: `${t.base}/patients/${patient}/email-drafts`, emails: `${t.base}/patients/${patient}/emails` };
}

describe('the SMTP driver', () => {
  test('sends over STARTTLS with AUTH: subject, HTML with its text rendering, the attachment and the headers arrive; DELIVERED', async () => {
    const app = await startApp({}, { env: { CAIRN_PROVIDERS_ALLOW_PRIVATE: 'true' } });
    const { t, drafts, emails } = await tenantOn(app);
    const draft = (
      await t.api.post(drafts, { subject: 'Your results', body: '<p>All <b>clear</b><script>x()</script></p>', bodyType: 'HTML' })
    ).body;
    const pdf = multipart([{ name: 'results.pdf', content: sampleFile('pdf', 5000), field: 'attachmentsAsFiles' }]);
    assert.equal((await t.api.request('POST', `${drafts}/${draft.id}`, pdf.body, pdf.headers)).status, 200);
    const email = (await t.api.post(`${drafts}/${draft.id}/send`)).body;
    assert.equal(email.from, 'care@clinic.example');
    await app.jobs.drain();

    const mail = received.find((candidate) => candidate.subject === 'Your results');
    assert.ok(mail, 'the relay received the email');
    assert.equal(mail.from?.value[0]?.address, 'care@clinic.example');
    assert.equal(mail.from?.value[0]?.name, 'Clinic Care Team');
    assert.equal((mail.to as { value: { address: string; name: string }[] }).value[0]?.address, 'pat@example.org');
    assert.equal((mail.to as { value: { address: string; name: string }[] }).value[0]?.name, 'Pat Lee');
    assert.equal(mail.html, '<p>All <b>clear</b></p>');
    assert.equal(mail.text?.trim(), 'All clear');
    assert.equal(mail.messageId, `<${email.id}@clinic.example>`);
    assert.equal(mail.attachments.length, 1);
    assert.equal(mail.attachments[0]?.filename, 'results.pdf');
    assert.equal(mail.attachments[0]?.contentType, 'application/pdf');
    assert.deepEqual(mail.attachments[0]?.content, sampleFile('pdf', 5000));

    const delivered = (await t.api.get(`${emails}/${email.id}`)).body;
    assert.equal(delivered.status, 'DELIVERED');
    assert.equal(delivered.externalId, `<${email.id}@clinic.example>`);
    assert.ok(delivered.sentAt);
    // The sandbox's routes do not exist for a channel SMTP carries.
    assert.equal((await t.api.get(`${t.base}/sandbox/outbox?channel=EMAIL`)).status, 404);
  });

  test('a mailbox the relay refuses (550) is REJECTED with its answer; a plain-text body goes as text', async () => {
    const app = await startApp({}, { env: { CAIRN_PROVIDERS_ALLOW_PRIVATE: 'true' } });
    const { t, drafts, emails } = await tenantOn(app);
    const refused = (await t.api.post(drafts, { subject: 'Nobody', patientEmail: 'nobody@example.org' })).body;
    const fine = (await t.api.post(drafts, { subject: 'Plain', body: 'Line one\nLine two' })).body;
    const one = (await t.api.post(`${drafts}/${refused.id}/send`)).body;
    const two = (await t.api.post(`${drafts}/${fine.id}/send`)).body;
    await app.jobs.drain();
    const rejected = (await t.api.get(`${emails}/${one.id}`)).body;
    assert.equal(rejected.status, 'REJECTED');
    assert.match(rejected.errorMessage, /550.*No such mailbox/);
    assert.equal((await t.api.get(`${emails}/${two.id}`)).body.status, 'DELIVERED');
    const plain = received.find((candidate) => candidate.subject === 'Plain');
    assert.equal(plain?.text?.trim(), 'Line one\nLine two');
    assert.equal(plain?.html, false);
  });

  test("a tenant's relay on a private address is not reached unless the operator allows it; wrong credentials are retried", async () => {
    const app = await startApp();
    const { t, drafts, emails } = await tenantOn(app);
    const draft = (await t.api.post(drafts, { subject: 'Private' })).body;
    const email = (await t.api.post(`${drafts}/${draft.id}/send`)).body;
    await app.jobs.drain();
    const waiting = (await t.api.get(`${emails}/${email.id}`)).body;
    assert.equal(waiting.status, 'ACCEPTED');
    assert.equal(waiting.errorMessage, 'The SMTP host is not at an address Cairn may reach');
    assert.ok(!received.some((mail) => mail.subject === 'Private'));

    const allowed = await startApp({}, { env: { CAIRN_PROVIDERS_ALLOW_PRIVATE: 'true' } });
    const other = await tenantOn(allowed);
    const wrong = await other.t.api.put(`${other.t.admin}/providers/email`, {
      ...smtp,
      options: { ...smtp.options, password: 'not-it' },
    });
    assert.equal(wrong.status, 200, wrong.text);
    const second = (await other.t.api.post(other.drafts, { subject: 'Credentials' })).body;
    const sent = (await other.t.api.post(`${other.drafts}/${second.id}/send`)).body;
    await allowed.jobs.drain();
    const retried = (await other.t.api.get(`${other.emails}/${sent.id}`)).body;
    assert.equal(retried.status, 'ACCEPTED');
    assert.match(retried.errorMessage, /Invalid username or password/);
  });
});
