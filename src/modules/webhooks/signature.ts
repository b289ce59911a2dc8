import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * Deliveries are signed as the Standard Webhooks specification says, with its own library, so
 * receivers verify them with any of its published verifiers: `webhook-id` (the event's id, the
 * same on every retry, for de-duplication), `webhook-timestamp` (seconds) and `webhook-signature`
 * (`v1,` + base64 HMAC-SHA256 over `id.timestamp.body`, keyed by the secret's bytes).
 */

/** A new secret: `whsec_` and 32 random bytes in base64, as the specification writes them. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function signedHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Cairn-Webhooks/1.0',
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(messageId, at, body),
  };
}

/** Where production's names (Spring's `HttpStatus`) differ from Node's reason phrases. */
const productionNames: Record<number, string> = { 416: 'REQUESTED_RANGE_NOT_SATISFIABLE', 418: 'I_AM_A_TEAPOT' };

/** A receiver's status as production's audit names it (PROD-SHAPES): `OK`, `BAD_REQUEST`, `INTERNAL_SERVER_ERROR`, … */
export function statusName(status: number): string {
  const known = productionNames[status];
  if (known) return known;
  const reason = http.STATUS_CODES[status];
  return reason
    ? reason
        .toUpperCase()
        .replace(/[^A-Z0-9]+/g, '_')
        .replace(/^_|_$/g, '')
    : String(status);
}
