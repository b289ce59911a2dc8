import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeTwilio } from '../../test/fake-twilio.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/**
 * The Twilio SMS driver end to end: sends through the `twilio` SDK to a local fake of Twilio's
 * API, and Twilio's signed callbacks (delivery reports, inbound messages) posted back.
 */

const twilio = await startFakeTwilio();
const publicUrl = 'https://cairn.example.org';
const app = await startApp(
  {},
  {
    env: {
      CAIRN_SMS_DRIVER: 'twilio',
      CAIRN_TWILIO_ACCOUNT_SID: twilio.accountSid,
      CAIRN_TWILIO_AUTH_TOKEN: twilio.authToken,
      CAIRN_TWILIO_BASE_URL: twilio.url,
      CAIRN_PUBLIC_URL: publicUrl,
    },
  },
);
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };

async function setup(patientPhone = '+14155550123') {
  const t = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', phone: patientPhone })).id;
  return { t, patient, sms: `${t.base}/patients/${patient}/sms` };
}

async function send(t: TestTenant, patient: string, message: string) {
  const { communicationId } = (await t.api.post(`${t.base}/communications`, { channel: 'SMS', patientContactId: patient })).body;
  return t.api.post(`${t.base}/${communicationId}/messages`, { message });
}

/** A callback as Twilio posts it: a form, signed for the URL it calls. */
function callback(t: TestTenant, kind: 'status' | 'inbound', params: Record<string, string>, signature?: string) {
  const path = `${t.base}/providers/sms/twilio/${kind}`;
  return t.anonymous.request('POST', path, new URLSearchParams(params).toString(), {
    'content-type': 'application/x-www-form-urlencoded',
    'x-twilio-signature': signature ?? twilio.sign(`${publicUrl}${path}`, params),
  });
}

describe('SMS through Twilio', () => {
  test('a send goes through the SDK to Twilio, and its signed delivery reports move it on, never back', async () => {
    const { t, patient, sms } = await setup();
    const sent = await send(t, patient, 'Your appointment is tomorrow at 10');
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.status, 'ACCEPTED');
    assert.match(sent.body.externalId, /^SM[0-9a-f]{32}$/);
    assert.equal(sent.body.from, phone.number);
    assert.equal(sent.body.to, '+14155550123');
    assert.equal(sent.body.phoneId, phone.id);
    assert.equal(sent.body.parts, 1);
    const request = twilio.received.find((entry) => entry.fields.Body === 'Your appointment is tomorrow at 10');
    assert.deepEqual(
      { To: request?.fields.To, From: request?.fields.From, StatusCallback: request?.fields.StatusCallback },
      { To: '+14155550123', From: phone.number, StatusCallback: `${publicUrl}${t.base}/providers/sms/twilio/status` },
    );

    const externalId = sent.body.externalId;
    const delivered = await callback(t, 'status', {
      MessageSid: externalId,
      MessageStatus: 'delivered',
      AccountSid: twilio.accountSid,
    });
    assert.equal(delivered.status, 200, delivered.text);
    assert.match(delivered.headers['content-type'] as string, /xml/);
    assert.equal((await t.api.get(`${sms}/${sent.body.id}`)).body.status, 'DELIVERED');
    // A late "sent" does not take it back.
    await callback(t, 'status', { MessageSid: externalId, MessageStatus: 'sent' });
    assert.equal((await t.api.get(`${sms}/${sent.body.id}`)).body.status, 'DELIVERED');

    const other = await send(t, patient, 'Second');
    await callback(t, 'status', { MessageSid: other.body.externalId, MessageStatus: 'undelivered', ErrorCode: '30003' });
    const undelivered = (await t.api.get(`${sms}/${other.body.id}`)).body;
    assert.equal(undelivered.status, 'UNDELIVERED');
    assert.equal(undelivered.errorMessage, 'Twilio error 30003');
  });

  test('an unsigned or wrongly signed callback is a 403 and changes nothing', async () => {
    const { t, patient, sms } = await setup();
    const sent = (await send(t, patient, 'Hello')).body;
    const params = { MessageSid: sent.externalId, MessageStatus: 'delivered' };
    assertCode(await callback(t, 'status', params, ''), 403, 'PROVIDER_SIGNATURE_INVALID');
    assertCode(
      await callback(t, 'status', params, twilio.sign(`${publicUrl}/elsewhere`, params)),
      403,
      'PROVIDER_SIGNATURE_INVALID',
    );
    assertCode(
      await callback(
        t,
        'status',
        { ...params, MessageStatus: 'failed' },
        twilio.sign(`${publicUrl}${t.base}/providers/sms/twilio/status`, params),
      ),
      403,
      'PROVIDER_SIGNATURE_INVALID',
    );
    assert.equal((await t.api.get(`${sms}/${sent.id}`)).body.status, 'ACCEPTED');
    // A driver the instance does not use.
    const path = `${t.base}/providers/sms/sandbox/status`;
    const wrongDriver = await t.anonymous.request('POST', path, new URLSearchParams(params).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilio.sign(`${publicUrl}${path}`, params),
    });
    assertCode(wrongDriver, 403, 'PROVIDER_SIGNATURE_INVALID');
  });

  test('inbound messages land on the patient with the number, else UNRECOGNISED; once per MessageSid', async () => {
    const { t, patient, sms } = await setup();
    const params = {
      MessageSid: `SM${'1'.repeat(32)}`,
      From: '+14155550123',
      To: phone.number,
      Body: 'Thanks, see you then',
      NumMedia: '0',
    };
    const inbound = await callback(t, 'inbound', params);
    assert.equal(inbound.status, 200, inbound.text);
    assert.match(inbound.text, /<Response>/);
    await callback(t, 'inbound', params);
    const list = (await t.api.get(`${sms}?direction=IN`)).body;
    assert.equal(list.totalElements, 1);
    const [message] = list.content;
    assert.equal(message.status, 'RECEIVED');
    assert.equal(message.sender, patient);
    assert.equal(message.senderType, 'PATIENT');
    assert.equal(message.message, 'Thanks, see you then');
    assert.equal(message.phoneId, phone.id);
    const stranger = await callback(t, 'inbound', { ...params, MessageSid: `SM${'2'.repeat(32)}`, From: '+14155550199' });
    assert.equal(stranger.status, 200);
    const row = await app.services.db
      .selectFrom('sms_messages')
      .select(['status', 'patient_id'])
      .where('tenant_id', '=', t.tenant.id)
      .where('external_id', '=', `SM${'2'.repeat(32)}`)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { status: 'UNRECOGNISED', patient_id: null });
  });

  test('Twilio refusing a send answers 500 PROVIDER_FAILED and leaves the SMS FAILED with its words', async () => {
    const { t, patient, sms } = await setup('+15005550001');
    const refused = await send(t, patient, 'Hello');
    assertCode(refused, 500, 'PROVIDER_FAILED');
    const list = (await t.api.get(sms)).body;
    assert.equal(list.totalElements, 1);
    assert.equal(list.content[0].status, 'FAILED');
    assert.match(list.content[0].errorMessage, /not a valid phone number/);
  });
});
