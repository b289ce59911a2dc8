import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SANDBOX_RECORDING } from '../../providers/sandbox.ts';
import { startFakeTwilio } from '../../test/fake-twilio.ts';
import {
  Api,
  assertCode,
  assertValidation,
  createPatient,
  createTestTenant,
  pageObjectKeys,
  startApp,
  type TestApp,
  type TestTenant,
  testFormation,
} from '../../test/harness.ts';

/** Voice calls: placed through the communication send, received, unrecognized, recorded, assigned. */

const twilio = await startFakeTwilio();
const publicUrl = 'https://cairn.example.org';
const sandboxApp = await startApp();
const twilioApp = await startApp(
  {},
  {
    env: {
      CAIRN_VOICE_DRIVER: 'twilio',
      CAIRN_TWILIO_ACCOUNT_SID: twilio.accountSid,
      CAIRN_TWILIO_AUTH_TOKEN: twilio.authToken,
      CAIRN_TWILIO_BASE_URL: twilio.url,
      CAIRN_PUBLIC_URL: publicUrl,
    },
  },
);
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };

async function setup(app: TestApp) {
  const t = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee', phone: '+14155550123' })).id;
  return { t, patient, calls: `${t.base}/unrecognized-patients/voice-calls` };
}

/** A care-team member who signs in, with a phone of their own. */
async function member(app: TestApp, t: TestTenant, phoneNumber: string | null = '+14155550150'): Promise<Api> {
  const username = `member-${crypto.randomUUID().slice(0, 8)}`;
  const created = await t.api.post(`${t.admin}/users`, {
    username,
    email: `${username}@example.org`,
    ...(phoneNumber ? { phone: phoneNumber } : {}),
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  assert.equal(created.status, 201, created.text);
  await t.api.put(`${t.admin}/users/${username}/password`, { password: 'a long enough password' });
  const login = await t.anonymous.post('/auth/token', {
    tenantName: t.tenant.name,
    username,
    password: 'a long enough password',
  });
  return new Api(app.server, login.body.token);
}

async function placeCall(api: Api, t: TestTenant, patient: string, recorded = true) {
  const { communicationId } = (await api.post(`${t.base}/communications`, { channel: 'VOICE_CALL', patientContactId: patient }))
    .body;
  return api.post(`${t.base}/${communicationId}/messages`, { recorded });
}

describe('voice calls through the sandbox', () => {
  test('an unrecognized call with a recording: listed, read, its audio served (Range), then assigned to a patient', async () => {
    const { t, patient, calls } = await setup(sandboxApp);
    const inbound = await t.api.post(`${t.base}/sandbox/inbound`, {
      channel: 'VOICE_CALL',
      from: '+14155550177',
      to: phone.number,
      recorded: true,
    });
    assert.equal(inbound.status, 201, inbound.text);
    assert.equal(inbound.body.patientId, null);
    await sandboxApp.jobs.drain();

    const list = await t.api.get(calls);
    assert.deepEqual(Object.keys(list.body).sort(), pageObjectKeys);
    assert.equal(list.body.totalElements, 1);
    const call = list.body.content[0];
    assert.equal(call.id, inbound.body.id);
    assert.equal(call.direction, 'IN');
    assert.equal(call.status, 'COMPLETED');
    assert.equal(call.unrecognized, true);
    assert.equal(call.from, '+14155550177');
    assert.equal(call.phoneId, phone.id);
    assert.equal(call.recorded, true);
    assert.equal(call.messageType, undefined);
    assert.equal(call.recordingFile.contentType, 'audio/mpeg');
    assert.ok(call.recordingUrl);

    const audio = `${calls}/${call.id}/recordings/${call.recordingFile.id}`;
    const whole = await t.api.request('GET', audio);
    assert.equal(whole.status, 200);
    assert.equal(whole.headers['content-type'], 'audio/mpeg');
    assert.equal(Number(whole.headers['content-length']), SANDBOX_RECORDING.length);
    const part = await t.api.request('GET', audio, undefined, { range: 'bytes=0-3' });
    assert.equal(part.status, 206);
    assertCode(await t.api.get(`${calls}/${call.id}/recordings/${crypto.randomUUID()}`), 404, 'FILE_NOT_FOUND');

    assert.deepEqual((await t.api.get(`${calls}?assigned=true`)).body.content, []);
    const assigned = await t.api.patch(`${calls}/${call.id}`, { patientId: patient, id: 'ignored' });
    assert.equal(assigned.status, 200, assigned.text);
    assert.equal(assigned.body.unrecognized, true);
    assert.equal(assigned.body.assignedBy, t.adminClient.id);
    assert.equal((await t.api.get(`${calls}?assigned=true`)).body.totalElements, 1);
    assert.equal((await t.api.get(`${calls}?assigned=false`)).body.totalElements, 0);
    assert.equal((await t.api.get(`${calls}?date=2999-01-01T00:00:00Z`)).body.totalElements, 0);
    // Its recording is the patient's now: it goes with the patient.
    assert.equal((await t.api.delete(`${t.base}/patients/${patient}`)).status, 200);
    assertCode(await t.api.get(`${calls}/${call.id}`), 404, 'VOICE_CALL_NOT_FOUND');
  });

  test("a member places a call (their phone, then the patient's); the sandbox settles it; an API client cannot", async () => {
    const { t, patient, calls } = await setup(sandboxApp);
    const api = await member(sandboxApp, t);
    const placed = await placeCall(api, t, patient);
    assert.equal(placed.status, 201, placed.text);
    assert.equal(placed.body.status, 'QUEUED');
    assert.equal(placed.body.userPhone, '+14155550150');
    assert.equal(placed.body.to, '+14155550123');
    assert.equal(placed.body.recorded, true);
    const [message] = (await t.api.get(`${t.base}/sandbox/outbox?channel=VOICE_CALL`)).body.content;
    assert.equal(message.reference, placed.body.id);
    await t.api.post(`${t.base}/sandbox/outbox/${message.id}/bounce`);
    const settled = (await t.api.get(`${calls}/${placed.body.id}`)).body;
    assert.equal(settled.status, 'NO_ANSWER');
    assert.equal(settled.unrecognized, false);
    assert.equal((await t.api.get(`${calls}?unrecognised=false`)).body.totalElements, 1);

    assertCode(await placeCall(t.api, t, patient), 400, 'NO_CALLER_PHONE');
    assertCode(await placeCall(await member(sandboxApp, t, null), t, patient), 400, 'NO_CALLER_PHONE');
  });

  test('400, 403, 404, and another tenant sees none of it', async () => {
    const { t, patient, calls } = await setup(sandboxApp);
    const inbound = (
      await t.api.post(`${t.base}/sandbox/inbound`, { channel: 'VOICE_CALL', from: '+14155550177', to: phone.number })
    ).body;
    assertValidation(await t.api.patch(`${calls}/${inbound.id}`, { patientId: 'nobody' }));
    assertValidation(await t.api.get(`${calls}?date=yesterday`));
    assertCode(await t.api.patch(`${calls}/${inbound.id}`, { patientId: crypto.randomUUID() }), 404, 'PATIENT_NOT_FOUND');
    assertCode(await t.api.get(`${calls}/${crypto.randomUUID()}`), 404, 'VOICE_CALL_NOT_FOUND');
    const reader = await t.apiWith(['VOICE_CALL_READ']);
    assert.equal((await reader.get(`${calls}/${inbound.id}`)).status, 200);
    assertCode(await reader.patch(`${calls}/${inbound.id}`, { patientId: patient }), 403, 'ACCESS_DENIED');
    assertCode(await (await t.apiWith(['SMS_READ'])).get(calls), 403, 'ACCESS_DENIED');
    const other = await setup(sandboxApp);
    assertCode(await other.t.api.get(`${other.calls}/${inbound.id}`), 404, 'VOICE_CALL_NOT_FOUND');
    assertCode(
      await other.t.api.patch(`${other.calls}/${inbound.id}`, { patientId: other.patient }),
      404,
      'VOICE_CALL_NOT_FOUND',
    );
    assert.equal((await other.t.api.get(other.calls)).body.totalElements, 0);
  });
});

describe('voice calls through Twilio', () => {
  function callback(t: TestTenant, path: string, params: Record<string, string>, signature?: string) {
    const url = `${t.base}/providers/voice/twilio/${path}`;
    return t.anonymous.request('POST', url, new URLSearchParams(params).toString(), {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': signature ?? twilio.sign(`${publicUrl}${url}`, params),
    });
  }

  test("the member's phone, then the patient's; both legs' reports and the recording come back signed", async () => {
    const { t, patient, calls } = await setup(twilioApp);
    const api = await member(twilioApp, t);
    const placed = await placeCall(api, t, patient);
    assert.equal(placed.status, 201, placed.text);
    const sid = placed.body.externalId;
    assert.match(sid, /^CA[0-9a-f]{32}$/);
    const request = twilio.received.find((entry) => entry.resource === 'Calls' && entry.fields.To === '+14155550150');
    assert.ok(request, 'Twilio was asked to ring the member');
    assert.equal(request.fields.From, phone.number);
    assert.match(
      request.fields.Twiml ?? '',
      /<Dial[^>]*record="record-from-answer-dual"[^>]*>.*<Number[^>]*>\+14155550123<\/Number>/,
    );
    assert.equal(request.fields.StatusCallback, `${publicUrl}${t.base}/providers/voice/twilio/status?leg=parent`);

    assert.equal((await callback(t, 'status?leg=parent', { CallSid: sid, CallStatus: 'in-progress' })).status, 200);
    const child = `CA${'3'.repeat(32)}`;
    await callback(t, 'status?leg=child', { CallSid: child, ParentCallSid: sid, CallStatus: 'completed', CallDuration: '42' });
    await callback(t, 'status?leg=parent', { CallSid: sid, CallStatus: 'completed', CallDuration: '60' });
    await callback(t, 'status?leg=parent', { CallSid: sid, CallStatus: 'ringing' });
    const call = (await t.api.get(`${calls}/${placed.body.id}`)).body;
    assert.equal(call.status, 'COMPLETED');
    assert.equal(call.parentCallStatus, 'COMPLETED');
    assert.equal(call.parentCallDuration, 60);
    assert.equal(call.childCallSid, child);
    assert.equal(call.childCallStatus, 'COMPLETED');
    assert.equal(call.childCallDuration, 42);

    assertCode(
      await callback(t, 'recording', { CallSid: sid, RecordingSid: 'RE1' }, 'forged'),
      403,
      'PROVIDER_SIGNATURE_INVALID',
    );
    assert.equal(
      (
        await callback(t, 'recording', {
          CallSid: sid,
          RecordingSid: `RE${'4'.repeat(32)}`,
          RecordingUrl: `${twilio.url}/missing`,
          RecordingDuration: '41',
        })
      ).status,
      200,
    );
    // The fake serves no such recording: the job waits to try again, and the call has none yet.
    await twilioApp.jobs.drain();
    assert.equal((await t.api.get(`${calls}/${placed.body.id}`)).body.recordingFile, null);
    const recordingSid = `RE${'6'.repeat(32)}`;
    const media = `${twilio.url}/2010-04-01/Accounts/${twilio.accountSid}/Recordings/${recordingSid}`;
    await callback(t, 'recording', { CallSid: sid, RecordingSid: recordingSid, RecordingUrl: media, RecordingDuration: '41' });
    await twilioApp.jobs.drain();
    const recorded = (await t.api.get(`${calls}/${placed.body.id}`)).body;
    assert.equal(recorded.recordingSid, recordingSid);
    assert.equal(recorded.recordingDuration, 41);
    assert.equal(recorded.recordingFile.size, SANDBOX_RECORDING.length);
    const audio = await t.api.request('GET', `${calls}/${placed.body.id}/recordings/${recorded.recordingFile.id}`);
    assert.equal(audio.status, 200);
  });

  test('a call to an instance phone is answered with a voicemail; from an unknown number it is unrecognized', async () => {
    const { t, calls } = await setup(twilioApp);
    const answered = await callback(t, 'inbound', {
      CallSid: `CA${'5'.repeat(32)}`,
      From: '+14155550199',
      To: phone.number,
      CallStatus: 'ringing',
    });
    assert.equal(answered.status, 200, answered.text);
    assert.match(
      answered.text,
      /<Record[^>]*recordingStatusCallback="https:\/\/cairn\.example\.org\/[^"]+\/providers\/voice\/twilio\/recording"/,
    );
    const [call] = (await t.api.get(calls)).body.content;
    assert.equal(call.status, 'IN_PROGRESS');
    assert.equal(call.unrecognized, true);
    assert.equal(call.from, '+14155550199');
    assertCode(
      await callback(t, 'inbound', { CallSid: 'CA1', From: '+1', To: phone.number }, ''),
      403,
      'PROVIDER_SIGNATURE_INVALID',
    );
  });
});
