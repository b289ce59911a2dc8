import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { SANDBOX_FAX_DOCUMENT } from '../providers/sandbox.ts';

/**
 * A local fake of the part of Telnyx's API v2 Cairn uses (Programmable Fax), for the real fax
 * driver's tests: the `telnyx` SDK is pointed at it (CAIRN_TELNYX_BASE_URL). It checks the bearer
 * key, answers `POST /v2/faxes` as Telnyx documents (202 with the fax, queued; 422 with Telnyx's
 * error body for the number +15005550001; 503 for +15005550009), keeps what it was sent, and
 * serves a received fax's document. `signed` makes the Ed25519 signature headers Telnyx puts on
 * its webhooks, with the key pair whose public half is `publicKey`.
 */
export interface FakeTelnyx {
  url: string;
  apiKey: string;
  /** Mission Control's public key, base64 of the raw 32 bytes. */
  publicKey: string;
  /** Each fax created: the JSON body the SDK sent. */
  received: Record<string, unknown>[];
  /** Where a received fax's document is served. */
  mediaUrl: string;
  /** The headers of a webhook carrying `body`, signed now (or at `timestamp`, seconds). */
  signed(body: string, timestamp?: number): Record<string, string>;
}

export async function startFakeTelnyx(): Promise<FakeTelnyx> {
  const apiKey = `KEY${randomUUID().replaceAll('-', '')}`;
  const keys = generateKeyPairSync('ed25519');
  // An Ed25519 SPKI is a fixed 12-byte header and the raw 32-byte key.
  const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('base64');
  const received: FakeTelnyx['received'] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const answer = (status: number, payload: object) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      if (request.method === 'GET' && request.url === '/media/received.pdf') {
        return response.writeHead(200, { 'content-type': 'application/pdf' }).end(SANDBOX_FAX_DOCUMENT);
      }
      if (request.headers.authorization !== `Bearer ${apiKey}`) {
        return answer(401, { errors: [{ code: '10009', title: 'Authentication failed' }] });
      }
      if (request.method !== 'POST' || request.url !== '/v2/faxes') return answer(404, { errors: [{ code: '10005' }] });
      const fields = JSON.parse(body) as Record<string, unknown>;
      received.push(fields);
      if (fields.to === '+15005550001') {
        return answer(422, { errors: [{ code: '10015', title: 'Invalid value', detail: 'to is not a valid number' }] });
      }
      if (fields.to === '+15005550009') return answer(503, { errors: [{ code: '10011', title: 'Service unavailable' }] });
      const now = new Date().toISOString();
      return answer(202, {
        data: {
          id: randomUUID(),
          record_type: 'fax',
          connection_id: fields.connection_id,
          direction: 'outbound',
          from: fields.from,
          to: fields.to,
          media_url: fields.media_url,
          quality: fields.quality,
          status: 'queued',
          webhook_url: fields.webhook_url,
          created_at: now,
          updated_at: now,
        },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    apiKey,
    publicKey,
    received,
    mediaUrl: `${url}/media/received.pdf`,
    signed(body, timestamp = Math.floor(Date.now() / 1000)) {
      const signature = sign(null, Buffer.from(`${timestamp}|${body}`), keys.privateKey).toString('base64');
      return {
        'content-type': 'application/json',
        'telnyx-signature-ed25519': signature,
        'telnyx-timestamp': String(timestamp),
      };
    },
  };
}
