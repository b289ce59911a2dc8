import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeTelnyx } from '../../test/fake-telnyx.ts';
import { multipart, sampleFile } from '../../test/files.ts';
import { assertCode, createTestTenant, startApp, type TestTenant, testFormation } from '../../test/harness.ts';

/**
 * The Telnyx fax driver end to end: sends through the `telnyx` SDK to a local fake of Telnyx's
 * API (which fetches the files by the links Cairn gives), and Telnyx's Ed25519-signed webhooks
 * (reports, faxes received) posted back.
 */

const telnyx = await startFakeTelnyx();
const publicUrl = 'https://cairn.example.org';
const app = await startApp(
  {},
  {
    env: {
      CAIRN_FAX_DRIVER: 'telnyx',
      CAIRN_TELNYX_API_KEY: telnyx.apiKey,
      CAIRN_TELNYX_FAX_CONNECTION_ID: '1293384261075731499',
      CAIRN_TELNYX_PUBLIC_KEY: telnyx.publicKey,
      CAIRN_TELNYX_BASE_URL: `${telnyx.url}/v2`,
      CAIRN_PUBLIC_URL: publicUrl,
    },
  },
);
const phone = { id: '0b5d2a8e-4a53-4a4e-9d43-3f0c5b1c7e01', number: '+14155550100', default: true };

async function setup() {
  const t = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
  return { t, url: `${t.base}/faxes` };
}

/** A draft to `to` with one PDF, sent, and its job run. */
async function sendFax(t: TestTenant, url: string, to: string) {
  const draft = (await t.api.post(url, { subject: 'Referral', receiver: { faxNumber: to } })).body;
  const form = multipart([{ name: 'referral.pdf', content: sampleFile('pdf', 2048) }]);
  await t.api.request('POST', `${url}/${draft.id}/files`, form.body, form.headers);
  const queued = await t.api.post(`${url}/${draft.id}/send`);
  assert.equal(queued.status, 200, queued.text);
  await app.jobs.drain();
  return (await t.api.get(`${url}/${draft.id}`)).body;
}

/** A webhook as Telnyx posts it: a JSON event, signed over its exact bytes. */
function webhook(t: TestTenant, eventType: string, payload: Record<string, unknown>, headers?: Record<string, string>) {
  const body = JSON.stringify({
    data: {
      event_type: eventType,
      id: crypto.randomUUID(),
      occurred_at: new Date().toISOString(),
      payload,
      record_type: 'event',
    },
    meta: { attempt: 1, delivered_to: `${publicUrl}${t.base}/providers/fax/telnyx/events` },
  });
  return t.anonymous.request('POST', `${t.base}/providers/fax/telnyx/events`, body, headers ?? telnyx.signed(body));
}

describe('faxes through Telnyx', () => {
  test("a send goes through the SDK with links to the fax's files; signed webhooks move it on, never back", async () => {
    const { t, url } = await setup();
    const fax = await sendFax(t, url, '+14155550160');
    assert.equal(fax.status, 'SENDING');
    assert.equal(fax.originalStatus, 'queued');
    const request = telnyx.received.at(-1) ?? {};
    assert.equal(request.to, '+14155550160');
    assert.equal(request.from, phone.number);
    assert.equal(request.connection_id, '1293384261075731499');
    assert.equal(request.quality, 'normal');
    assert.equal(request.webhook_url, `${publicUrl}${t.base}/providers/fax/telnyx/events`);
    // Telnyx fetches the file by its link, without a token.
    const link = String(request.media_url);
    assert.ok(link.startsWith(`${publicUrl}/`), link);
    const file = await t.anonymous.get(link.slice(publicUrl.length));
    assert.equal(file.status, 200);
    assert.equal(file.headers['content-length'], '2048');

    const id = fax.faxId;
    assert.equal((await webhook(t, 'fax.delivered', { fax_id: id, status: 'delivered', page_count: 2 })).status, 200);
    const delivered = (await t.api.get(`${url}/${fax.id}`)).body;
    assert.equal(delivered.status, 'DELIVERED');
    assert.equal(delivered.pages, 2);
    // A late "sending" does not take it back; an event Cairn keeps nothing of is acknowledged.
    assert.equal((await webhook(t, 'fax.sending.started', { fax_id: id, status: 'sending' })).status, 200);
    assert.equal((await webhook(t, 'fax.media.processed', { fax_id: id, status: 'media.processed' })).status, 200);
    assert.equal((await t.api.get(`${url}/${fax.id}`)).body.status, 'DELIVERED');

    const other = await sendFax(t, url, '+14155550161');
    await webhook(t, 'fax.failed', { fax_id: other.faxId, status: 'failed', failure_reason: 'receiver_call_dropped' });
    const failed = (await t.api.get(`${url}/${other.id}`)).body;
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.statusMessage, 'receiver_call_dropped');
  });

  test('a number Telnyx refuses fails the fax at once; Telnyx down leaves it queued, with the reason', async () => {
    const { t, url } = await setup();
    const refused = await sendFax(t, url, '+15005550001');
    assert.equal(refused.status, 'FAILED');
    assert.match(refused.statusMessage, /422/);
    const unavailable = await sendFax(t, url, '+15005550009');
    assert.equal(unavailable.status, 'QUEUED');
    assert.match(unavailable.statusMessage, /503/);
  });

  test('a fax received lands RECEIVED, its document fetched from Telnyx; once per fax id', async () => {
    const { t, url } = await setup();
    const payload = { fax_id: crypto.randomUUID(), from: '+14155550170', to: phone.number, media_url: telnyx.mediaUrl };
    assert.equal((await webhook(t, 'fax.received', payload)).status, 200);
    assert.equal((await webhook(t, 'fax.received', payload)).status, 200);
    await app.jobs.drain();
    const list = (await t.api.get(`${url}?direction=IN`)).body;
    assert.equal(list.totalElements, 1);
    const [fax] = list.content;
    assert.equal(fax.status, 'RECEIVED');
    assert.equal(fax.reviewed, false);
    assert.equal(fax.fromNumber, '+14155550170');
    assert.equal(fax.files.length, 1);
    assert.equal(fax.files[0].contentType, 'application/pdf');
  });

  test('an unsigned, wrongly signed, altered or stale webhook is a 403 and changes nothing', async () => {
    const { t, url } = await setup();
    const fax = await sendFax(t, url, '+14155550162');
    const body = JSON.stringify({ data: { event_type: 'fax.delivered', payload: { fax_id: fax.faxId, status: 'delivered' } } });
    const path = `${t.base}/providers/fax/telnyx/events`;
    const post = (text: string, headers: Record<string, string>) => t.anonymous.request('POST', path, text, headers);
    assertCode(await post(body, { 'content-type': 'application/json' }), 403, 'PROVIDER_SIGNATURE_INVALID');
    assertCode(await post(body.replace('delivered', 'failed'), telnyx.signed(body)), 403, 'PROVIDER_SIGNATURE_INVALID');
    const stale = Math.floor(Date.now() / 1000) - 3600;
    assertCode(await post(body, telnyx.signed(body, stale)), 403, 'PROVIDER_SIGNATURE_INVALID');
    const sandboxPath = `${t.base}/providers/fax/sandbox/events`;
    assertCode(await t.anonymous.request('POST', sandboxPath, body, telnyx.signed(body)), 403, 'PROVIDER_SIGNATURE_INVALID');
    assert.equal((await t.api.get(`${url}/${fax.id}`)).body.status, 'SENDING');
    assertCode(
      await t.anonymous.request('POST', `/no-such-tenant/sandbox/providers/fax/telnyx/events`, body, telnyx.signed(body)),
      404,
      'TENANT_NOT_FOUND',
    );
    assert.equal((await post(body, telnyx.signed(body))).status, 200);
    assert.equal((await t.api.get(`${url}/${fax.id}`)).body.status, 'DELIVERED');
    // Another tenant's URL, with a good signature, finds no such fax there.
    const other = await createTestTenant(app, testFormation({ instancePhones: [phone] }));
    const foreign = await other.anonymous.request('POST', `${other.base}/providers/fax/telnyx/events`, body, telnyx.signed(body));
    assert.equal(foreign.status, 200);
  });
});
