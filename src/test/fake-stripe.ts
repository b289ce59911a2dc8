import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import Stripe from 'stripe';

/**
 * A local fake of the part of Stripe's API Cairn uses (customers, payment methods' attach, setup
 * and payment intents, products, subscription schedules), for the real driver's tests: the
 * `stripe` SDK is pointed at it (CAIRN_STRIPE_API_URL). It checks the bearer key, reads the SDK's
 * forms, answers as Stripe documents (402 card_error for `pm_card_chargeDeclined` on attach and
 * `pm_card_chargeCustomerFail` on a charge; 400 resource_missing for an id that is not a test
 * method), replays an idempotency key's first answer, and keeps what it was sent. `signed` makes
 * the Stripe-Signature of a webhook with the SDK's own helper.
 */
export interface FakeStripe {
  url: string;
  secretKey: string;
  webhookSecret: string;
  /** Each request: its path and form fields. */
  received: { path: string; fields: Record<string, string> }[];
  signed(payload: string, timestamp?: number): Record<string, string>;
}

const id = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 24)}`;

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomUUID().replaceAll('-', '')}`;
  const webhookSecret = `whsec_${randomUUID().replaceAll('-', '')}`;
  const received: FakeStripe['received'] = [];
  const replies = new Map<string, { status: number; body: object }>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const answer = (status: number, payload: object) => {
        const key = request.headers['idempotency-key'];
        if (typeof key === 'string' && request.method === 'POST') replies.set(key, { status, body: payload });
        response.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') }).end(JSON.stringify(payload));
      };
      const refuse = (status: number, type: string, code: string, message: string) =>
        answer(status, { error: { type, code, message } });
      if (request.headers.authorization !== `Bearer ${secretKey}`) {
        return refuse(401, 'invalid_request_error', 'api_key_invalid', 'Invalid API Key provided');
      }
      const key = request.headers['idempotency-key'];
      const replay = typeof key === 'string' ? replies.get(key) : undefined;
      if (replay) {
        return response
          .writeHead(replay.status, { 'content-type': 'application/json', 'idempotent-replayed': 'true' })
          .end(JSON.stringify(replay.body));
      }
      const fields = Object.fromEntries(new URLSearchParams(body));
      const path = (request.url ?? '').split('?')[0] ?? '';
      received.push({ path, fields });
      const attach = /^\/v1\/payment_methods\/([^/]+)\/attach$/.exec(path);
      const cancel = /^\/v1\/subscription_schedules\/([^/]+)\/cancel$/.exec(path);
      if (path === '/v1/customers') return answer(200, { id: id('cus'), object: 'customer' });
      if (attach) {
        const method = decodeURIComponent(attach[1] ?? '');
        if (!/^pm_[A-Za-z0-9_]+$/.test(method)) {
          return refuse(400, 'invalid_request_error', 'resource_missing', `No such PaymentMethod: '${method}'`);
        }
        if (method.startsWith('pm_card_chargeDeclined'))
          return refuse(402, 'card_error', 'card_declined', 'Your card was declined.');
        return answer(200, { id: method, object: 'payment_method', customer: fields.customer });
      }
      if (path === '/v1/setup_intents') return answer(200, { id: id('seti'), object: 'setup_intent', status: 'succeeded' });
      if (path === '/v1/payment_intents') {
        if (fields.payment_method === 'pm_card_chargeCustomerFail') {
          return refuse(402, 'card_error', 'card_declined', 'Your card was declined.');
        }
        return answer(200, { id: id('pi'), object: 'payment_intent', status: 'succeeded', amount: Number(fields.amount) });
      }
      if (path === '/v1/products') return answer(200, { id: id('prod'), object: 'product', name: fields.name });
      if (path === '/v1/subscription_schedules') {
        const status = Number(fields.start_date) * 1000 > Date.now() ? 'not_started' : 'active';
        return answer(200, { id: id('sub_sched'), object: 'subscription_schedule', status });
      }
      if (cancel) return answer(200, { id: cancel[1], object: 'subscription_schedule', status: 'canceled' });
      return refuse(404, 'invalid_request_error', 'resource_missing', `Unrecognized request URL (${path})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const stripe = new Stripe(secretKey);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secretKey,
    webhookSecret,
    received,
    signed: (payload, timestamp) => ({
      'content-type': 'application/json',
      'stripe-signature': stripe.webhooks.generateTestHeaderString({
        payload,
        secret: webhookSecret,
        ...(timestamp ? { timestamp } : {}),
      }),
    }),
  };
}
