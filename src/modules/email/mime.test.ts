import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import MailComposer from 'nodemailer/lib/mail-composer';
import { Webhook } from 'standardwebhooks';
import { TestClock } from '../../test/clock.ts';
import { sampleFile } from '../../test/files.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/** Raw inbound email: POST /{tenant}/{instance}/providers/email/inbound, message/rfc822, signed. */

const clock = new TestClock('2026-06-01T12:00:00.000Z');
const app = await startApp({}, { clock });
const secret = `whsec_${randomBytes(24).toString('base64')}`;

async function setup() {
  const t = await createTestTenant(app);
  const configured = await t.api.put(`${t.admin}/providers/email`, {
    driver: 'smtp',
    options: { host: 'smtp.clinic.example', from: 'care@clinic.example', inboundSecret: secret },
  });
  assert.equal(configured.status, 200, configured.text);
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', email: 'pat@example.org' })).id;
  return { t, patient, url: `${t.base}/providers/email/inbound` };
}

async function raw(options: Record<string, unknown>): Promise<string> {
  const message = await new MailComposer({
    from: 'Pat Lee <PAT@example.org>',
    to: 'Care Team <care@clinic.example>',
    subject: 'Photos of the rash',
    text: 'Here they are',
    html: '<p>Here they <b>are</b><img src="x" onerror="steal()"></p>',
    messageId: `<${randomUUID()}@example.org>`,
    ...options,
  })
    .compile()
    .build();
  return message.toString('utf8');
}

function post(t: TestTenant, url: string, body: string, headers: Record<string, string>) {
  return t.anonymous.request('POST', url, body, { 'content-type': 'message/rfc822', ...headers });
}

function signed(body: string, key = secret, at = clock.now()) {
  const id = `msg_${randomUUID()}`;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, at, body),
  };
}

async function stored(t: TestTenant) {
  return app.services.db.selectFrom('files').select(['id', 'original_name']).where('tenant_id', '=', t.tenant.id).execute();
}

describe('raw inbound email', () => {
  test('a signed message lands on its patient with its text, sanitized HTML and the attachments the rules take; once', async () => {
    const { t, patient, url } = await setup();
    const body = await raw({
      attachments: [
        { filename: 'rash.pdf', content: sampleFile('pdf', 3000), contentType: 'application/pdf' },
        { filename: 'tool.exe', content: Buffer.from('MZ not allowed'), contentType: 'application/octet-stream' },
      ],
    });
    const headers = signed(body);
    const response = await post(t, url, body, headers);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.patientId, patient);
    assert.equal(response.body.status, 'DELIVERED');

    const email = (await t.api.get(`${t.base}/patients/${patient}/emails/${response.body.id}`)).body;
    assert.equal(email.direction, 'IN');
    assert.equal(email.from, 'PAT@example.org');
    assert.equal(email.to, 'care@clinic.example');
    assert.equal(email.senderName, 'Pat Lee');
    assert.equal(email.subject, 'Photos of the rash');
    assert.equal(email.bodyType, 'HTML');
    assert.ok(!email.body.includes('onerror'), email.body);
    assert.match(email.body, /Here they <b>are<\/b>/);
    assert.deepEqual(
      email.attachments.map((file: { originalName: string }) => file.originalName),
      ['rash.pdf'],
    );
    const file = await t.api.get(`${t.base}/files/${email.attachments[0].id}`);
    assert.equal(file.body.size, 3000);

    // The same message handed over again is the same email.
    const again = await post(t, url, body, signed(body));
    assert.equal(again.body.id, response.body.id);
    assert.equal((await stored(t)).length, 1);
  });

  test('from no known address: UNRECOGNISED; without From: 400', async () => {
    const { t, url } = await setup();
    const body = await raw({ from: 'someone@elsewhere.example' });
    const response = await post(t, url, body, signed(body));
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.status, 'UNRECOGNISED');
    assert.equal(response.body.patientId, null);
    const noFrom = (await raw({})).replace(/^From: .*\r\n/m, '');
    assertCode(await post(t, url, noFrom, signed(noFrom)), 400, 'VALIDATION_ERROR');
  });

  test('403 and nothing kept: unsigned, wrongly signed, too old, or with no secret configured; 415, 404', async () => {
    const { t, url } = await setup();
    const body = await raw({ attachments: [{ filename: 'rash.pdf', content: sampleFile('pdf') }] });
    assertCode(await post(t, url, body, {}), 403, 'PROVIDER_SIGNATURE_INVALID');
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    assertCode(await post(t, url, body, signed(body, other)), 403, 'PROVIDER_SIGNATURE_INVALID');
    assertCode(await post(t, url, `${body}\r\nX`, signed(body)), 403, 'PROVIDER_SIGNATURE_INVALID');
    const old = new Date(clock.now().getTime() - 10 * 60_000);
    assertCode(await post(t, url, body, signed(body, secret, old)), 403, 'PROVIDER_SIGNATURE_INVALID');
    assert.deepEqual(await stored(t), []);
    const emails = await app.services.db.selectFrom('emails').select('id').where('tenant_id', '=', t.tenant.id).execute();
    assert.deepEqual(emails, []);

    const sandboxed = await createTestTenant(app);
    const plain = `${sandboxed.base}/providers/email/inbound`;
    assertCode(await post(sandboxed, plain, body, signed(body)), 403, 'PROVIDER_SIGNATURE_INVALID');
    const json = await t.anonymous.request('POST', url, { message: 'hi' });
    assertCode(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertCode(
      await post(t, `/nowhere-${randomBytes(3).toString('hex')}/sandbox/providers/email/inbound`, body, signed(body)),
      404,
      'TENANT_NOT_FOUND',
    );
    assertCode(await post(t, `/${t.tenant.name}/nowhere/providers/email/inbound`, body, signed(body)), 404, 'INSTANCE_NOT_FOUND');
  });
});
