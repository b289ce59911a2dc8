import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import twilio from 'twilio';
import { SANDBOX_RECORDING } from '../providers/sandbox.ts';

/**
 * A local fake of the part of Twilio's REST API Cairn uses (Messages and Calls), for the real
 * driver's tests: the `twilio` SDK is pointed at it (CAIRN_TWILIO_BASE_URL). It checks the basic
 * auth the SDK sends, answers as Twilio documents (201 with the resource; 400 with Twilio's error
 * body for its magic invalid number +15005550001; 503 for +15005550009), and keeps what it was
 * sent; it serves any recording's media (a moment of silence). `sign` makes the X-Twilio-Signature
 * Twilio puts on its callbacks.
 */
export interface FakeTwilio {
  url: string;
  accountSid: string;
  authToken: string;
  /** Each create, its resource (`Messages`, `Calls`) and form fields. */
  received: { resource: string; fields: Record<string, string> }[];
  sign(url: string, params: Record<string, string>): string;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const accountSid = `AC${hex(16)}`;
  const authToken = hex(16);
  const received: FakeTwilio['received'] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const answer = (status: number, payload: object) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
      if (request.headers.authorization !== expected) {
        return answer(401, { code: 20003, message: 'Authenticate', status: 401 });
      }
      const recording = /^\/2010-04-01\/Accounts\/(AC\w+)\/Recordings\/(RE\w+)\.mp3$/.exec(request.url ?? '');
      if (request.method === 'GET' && recording && recording[1] === accountSid) {
        return response.writeHead(200, { 'content-type': 'audio/mpeg' }).end(SANDBOX_RECORDING);
      }
      const match = /^\/2010-04-01\/Accounts\/(AC\w+)\/(Messages|Calls)\.json$/.exec(request.url ?? '');
      if (request.method !== 'POST' || !match || match[1] !== accountSid) return answer(404, { code: 20404, status: 404 });
      const fields = Object.fromEntries(new URLSearchParams(body));
      const resource = match[2] as string;
      received.push({ resource, fields });
      if (fields.To === '+15005550001') {
        return answer(400, { code: 21211, message: `The 'To' number ${fields.To} is not a valid phone number.`, status: 400 });
      }
      if (fields.To === '+15005550009') return answer(503, { code: 20503, message: 'Service unavailable', status: 503 });
      const now = new Date().toUTCString();
      const common = { account_sid: accountSid, to: fields.To, from: fields.From ?? null, date_created: now, date_updated: now };
      if (resource === 'Messages') {
        return answer(201, {
          ...common,
          sid: `SM${hex(16)}`,
          status: 'queued',
          body: fields.Body,
          num_segments: '1',
          direction: 'outbound-api',
        });
      }
      return answer(201, { ...common, sid: `CA${hex(16)}`, status: 'queued', direction: 'outbound-api' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accountSid,
    authToken,
    received,
    sign: (url, params) => twilio.getExpectedTwilioSignature(authToken, url, params),
  };
}
