import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Formation } from '../../formation/schemas.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import {
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  newInstance,
  pageObjectKeys,
  startApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/** The two-step communication send (002 "Communications") through the sandbox, and the SMS list. */

const app = await startApp();
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };
const second = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e02', number: '+14155550101' };
const pdts: NonNullable<Formation['pdts']> = [
  { name: 'caregiver', title: 'Caregiver', contactable: true, fields: [{ name: 'pdtf-name', type: 'text' }] },
];

async function setup(formation = testFormation({ instancePhones: [phone, second], pdts })) {
  const t = await createTestTenant(app, formation);
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', phone: '+14155550123', email: 'pat@example.org' }))
    .id;
  return { t, patient };
}

async function communication(t: TestTenant, body: Record<string, unknown>) {
  const response = await t.api.post(`${t.base}/communications`, body);
  assert.equal(response.status, 200, response.text);
  assert.deepEqual(Object.keys(response.body), ['communicationId']);
  assert.match(response.body.communicationId, /^[A-Za-z0-9_.-]+$/);
  return response.body.communicationId as string;
}

async function outbox(t: TestTenant) {
  return (await t.api.get(`${t.base}/sandbox/outbox`)).body.content;
}

describe('the communication send', () => {
  test('SMS: step one stores nothing; step two stores the message, the sandbox takes it, and what it is told moves it', async () => {
    const { t, patient } = await setup();
    const id = await communication(t, { channel: 'SMS', patientContactId: patient });
    assert.deepEqual(await outbox(t), []);
    const sent = await t.api.post(`${t.base}/${id}/messages`, {
      message: 'See you tomorrow',
      subject: 'ignored',
      recorded: true,
    });
    assert.equal(sent.status, 201, sent.text);
    const sms = sent.body;
    assert.equal(sms.status, 'ACCEPTED');
    assert.equal(sms.direction, 'OUT');
    assert.equal(sms.from, phone.number);
    assert.equal(sms.to, '+14155550123');
    assert.equal(sms.receiver, patient);
    assert.equal(sms.receiverName, 'Pat Lee');
    assert.equal(sms.message, 'See you tomorrow');
    assert.equal(sms.parts, 1);
    assert.equal(sms.messageType, 'CARE_TEAM');
    assert.equal(sms.sender, t.adminClient.id);
    const [message] = await outbox(t);
    assert.equal(message.channel, 'SMS');
    assert.equal(message.reference, sms.id);
    assert.equal(message.externalId, undefined);
    assert.equal(sms.externalId, message.id);

    const url = `${t.base}/patients/${patient}/sms/${sms.id}`;
    assert.equal((await t.api.post(`${t.base}/sandbox/outbox/${message.id}/bounce`, { error: 'carrier violation' })).status, 200);
    const undelivered = (await t.api.get(url)).body;
    assert.equal(undelivered.status, 'UNDELIVERED');
    assert.equal(undelivered.errorMessage, 'carrier violation');

    // The same id sends again, from the phone it named.
    const other = await communication(t, {
      channel: 'SMS',
      patientContactId: patient,
      instancePhoneId: second.id,
      patientContactPhoneNumber: '+14155550124',
    });
    const again = (await t.api.post(`${t.base}/${other}/messages`, { message: 'x'.repeat(161) })).body;
    assert.equal(again.from, second.number);
    assert.equal(again.to, '+14155550124');
    assert.equal(again.parts, 2);
    const unicode = (await t.api.post(`${t.base}/${other}/messages`, { message: `${'é'.repeat(70)}😀` })).body;
    assert.equal(unicode.parts, 2);
  });

  test('SMS with a file (multipart), to a contact; EMAIL through the sandbox', async () => {
    const { t, patient } = await setup();
    const pdt = (await t.api.post(`${t.base}/pdts/caregiver`, { 'pdtf-name': 'Sam' })).body;
    const contact = (
      await t.api.post(`${t.base}/patients/${patient}/contacts`, {
        pdtRecordId: pdt.id,
        name: 'Sam Lee',
        phone: '+14155550130',
        email: 'sam@example.org',
      })
    ).body;
    const id = await communication(t, { channel: 'SMS', patientContactId: contact.id });
    const form = multipart([
      { field: 'message', value: 'The form you asked for' },
      { name: 'consent.png', content: sampleFile('png'), field: 'attachmentsAsFiles' },
    ]);
    const sent = await t.api.request('POST', `${t.base}/${id}/messages`, form.body, form.headers);
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.body.receiver, contact.id);
    assert.equal(sent.body.receiverType, 'CONTACT');
    assert.equal(sent.body.to, '+14155550130');
    assert.deepEqual(
      sent.body.attachments.map((file: { originalName: string }) => file.originalName),
      ['consent.png'],
    );
    assert.deepEqual((await outbox(t))[0].attachmentNames.length, 1);
    assert.equal((await t.api.get(`${t.base}/patients/${contact.id}/sms/${sent.body.id}`)).status, 200);
    assertCode(await t.api.get(`${t.base}/patients/${patient}/sms/${sent.body.id}`), 404, 'SMS_NOT_FOUND');

    const email = await communication(t, { channel: 'EMAIL', patientContactId: patient });
    assertValidation(await t.api.post(`${t.base}/${email}/messages`, { message: 'No subject' }), 'body.subject');
    const mail = await t.api.post(`${t.base}/${email}/messages`, {
      message: 'Results attached',
      subject: 'Results',
      secure: true,
    });
    assert.equal(mail.status, 201, mail.text);
    assert.equal(mail.body.status, 'ACCEPTED');
    assert.equal(mail.body.to, 'pat@example.org');
    assert.equal(mail.body.subject, 'Results');
    assert.equal(mail.body.secure, true);
    assert.equal((await t.api.get(`${t.base}/patients/${patient}/emails/${mail.body.id}`)).body.status, 'ACCEPTED');
  });

  test('400 for a forged, altered or foreign id, a missing field, no phone or no number; 404; 401 and 403', async () => {
    const { t, patient } = await setup();
    const id = await communication(t, { channel: 'SMS', patientContactId: patient });
    const send = (communicationId: string, body: unknown = { message: 'hi' }) =>
      t.api.post(`${t.base}/${communicationId}/messages`, body);
    assertCode(await send('not-an-id'), 400, 'INVALID_COMMUNICATION_ID');
    const [payload = '', mac = ''] = id.split('.');
    const altered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), channel: 'EMAIL' }),
    ).toString('base64url');
    assertCode(await send(`${altered}.${mac}`), 400, 'INVALID_COMMUNICATION_ID');
    assertValidation(await send(id, {}), 'body.message');
    assertValidation(await send(id, { message: 5 }));
    // Longer than any provider carries (and than the segment calculator handles in good time): refused at once.
    assertValidation(await send(id, { message: 'a'.repeat(1601) }), 'body.message');
    assert.equal((await send(id, { message: 'a'.repeat(1600) })).status, 201);
    assertCode(
      await t.api.post(`${t.base}/communications`, { channel: 'PIGEON', patientContactId: patient }),
      400,
      'VALIDATION_ERROR',
    );
    assertCode(
      await t.api.post(`${t.base}/communications`, {
        channel: 'SMS',
        patientContactId: patient,
        instancePhoneId: crypto.randomUUID(),
      }),
      400,
      'NO_INSTANCE_PHONE',
    );
    assertCode(
      await t.api.post(`${t.base}/communications`, { channel: 'SMS', patientContactId: crypto.randomUUID() }),
      404,
      'PATIENT_NOT_FOUND',
    );
    assertCode(
      await t.api.post(`${t.base}/communications`, {
        channel: 'SMS',
        patientContactId: patient,
        patientContactPhoneNumber: '555',
      }),
      400,
      'VALIDATION_ERROR',
    );
    const silent = (await createPatient(t, { firstName: 'No', lastName: 'Phone' })).id;
    assertCode(
      await t.api.post(`${t.base}/communications`, { channel: 'SMS', patientContactId: silent }),
      400,
      'NO_CONTACT_ADDRESS',
    );
    assertCode(
      await t.api.post(`${t.base}/communications`, { channel: 'EMAIL', patientContactId: silent }),
      400,
      'NO_CONTACT_ADDRESS',
    );

    // An id is good only where it was issued.
    const live = await newInstance(app, t.tenant, 'live');
    assert.ok(live);
    const other = await setup();
    assertCode(await other.t.api.post(`${other.t.base}/${id}/messages`, { message: 'hi' }), 400, 'INVALID_COMMUNICATION_ID');

    const noPhones = await setup(testFormation());
    assertCode(
      await noPhones.t.api.post(`${noPhones.t.base}/communications`, { channel: 'SMS', patientContactId: noPhones.patient }),
      400,
      'NO_INSTANCE_PHONE',
    );

    const reader = await t.apiWith(['SMS_READ']);
    assertCode(
      await reader.post(`${t.base}/communications`, { channel: 'SMS', patientContactId: patient }),
      403,
      'ACCESS_DENIED',
    );
    assertCode(await reader.post(`${t.base}/${id}/messages`, { message: 'hi' }), 403, 'ACCESS_DENIED');
    assertCode(await t.anonymous.post(`${t.base}/${id}/messages`, { message: 'hi' }), 401, 'NOT_VALID_JSON_WEB_TOKEN');
  });
});

describe("the instance phone's capabilities", () => {
  const faxOnly = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e03', number: '+14155550102', default: true, capabilities: ['FAX'] };
  const textOnly = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e04', number: '+14155550103', capabilities: ['SMS'] };

  test('a phone whose capabilities leave the channel out is no phone for it: 400 NO_INSTANCE_PHONE at step one, and again at step two', async () => {
    const { t, patient } = await setup(testFormation({ instancePhones: [faxOnly, textOnly], pdts } as Partial<Formation>));
    const ask = (body: Record<string, unknown>) => t.api.post(`${t.base}/communications`, { patientContactId: patient, ...body });
    // The default phone sends faxes only: no default for SMS or calls.
    assertCode(await ask({ channel: 'SMS' }), 400, 'NO_INSTANCE_PHONE');
    assertCode(await ask({ channel: 'SMS', instancePhoneId: faxOnly.id }), 400, 'NO_INSTANCE_PHONE');
    assertCode(await ask({ channel: 'VOICE_CALL', instancePhoneId: textOnly.id }), 400, 'NO_INSTANCE_PHONE');
    // Another tenant's phone, which sends on every channel there, is none here.
    const other = await setup(testFormation({ instancePhones: [second], pdts }));
    assertCode(await ask({ channel: 'SMS', instancePhoneId: second.id }), 400, 'NO_INSTANCE_PHONE');

    const id = await communication(t, { channel: 'SMS', patientContactId: patient, instancePhoneId: textOnly.id });
    // The formation then takes SMS from the phone: step two refuses, and nothing is stored or sent.
    const current = (await t.api.get(`${t.base}/formations/current`)).body.formation;
    const instancePhones = [faxOnly, { ...textOnly, capabilities: ['VOICE_CALL'] }];
    assert.equal((await t.api.put(`${t.base}/formations/draft`, { ...current, instancePhones })).status, 200);
    assert.equal((await t.api.post(`${t.base}/formations/draft/publish`)).status, 200);
    assertCode(await t.api.post(`${t.base}/${id}/messages`, { message: 'hi' }), 400, 'NO_INSTANCE_PHONE');
    assert.deepEqual(await outbox(t), []);
    assert.equal((await t.api.get(`${t.base}/patients/${patient}/sms`)).body.totalElements, 0);
    assert.equal((await ask({ channel: 'VOICE_CALL', instancePhoneId: textOnly.id })).status, 200);
    assert.equal((await other.t.api.get(`${other.t.base}/patients/${other.patient}/sms`)).body.totalElements, 0);
  });
});

describe('the SMS list', () => {
  test('page object newest first, status, direction and date filters, inbound from the sandbox; another tenant sees none', async () => {
    const { t, patient } = await setup();
    const id = await communication(t, { channel: 'SMS', patientContactId: patient });
    const first = (await t.api.post(`${t.base}/${id}/messages`, { message: 'One' })).body;
    const second = (await t.api.post(`${t.base}/${id}/messages`, { message: 'Two' })).body;
    const inbound = await t.api.post(`${t.base}/sandbox/inbound`, {
      channel: 'SMS',
      from: '+14155550123',
      to: phone.number,
      message: 'Three',
    });
    assert.equal(inbound.status, 201, inbound.text);
    assert.equal(inbound.body.status, 'RECEIVED');
    const tooLong = { channel: 'SMS', from: '+14155550123', to: phone.number, message: 'a'.repeat(1601) };
    assertValidation(await t.api.post(`${t.base}/sandbox/inbound`, tooLong), 'body.message');
    const url = `${t.base}/patients/${patient}/sms`;
    const all = await t.api.get(url);
    assert.deepEqual(Object.keys(all.body).sort(), pageObjectKeys);
    assert.deepEqual(
      all.body.content.map((sms: { id: string }) => sms.id),
      [inbound.body.id, second.id, first.id],
    );
    const ids = async (query: string) => (await t.api.get(`${url}?${query}`)).body.content.map((sms: { id: string }) => sms.id);
    assert.deepEqual(await ids('direction=IN'), [inbound.body.id]);
    assert.deepEqual(await ids('status=ACCEPTED&sort=date,asc'), [first.id, second.id]);
    assert.deepEqual(await ids(`dateAfter=${encodeURIComponent(second.date)}&direction=OUT`), [second.id]);
    assertValidation(await t.api.get(`${url}?status=LOST`));
    assertCode(await t.api.get(`${url}/${crypto.randomUUID()}`), 404, 'SMS_NOT_FOUND');
    assertCode(await (await t.apiWith(['EMAIL_READ'])).get(url), 403, 'ACCESS_DENIED');
    const other = await setup();
    assertCode(await other.t.api.get(`${other.t.base}/patients/${patient}/sms`), 404, 'PATIENT_NOT_FOUND');
  });
});
