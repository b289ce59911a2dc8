import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { ApiError } from '../wire/errors.ts';

/**
 * A request body signed as Standard Webhooks says (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`: HMAC-SHA256 of `id.timestamp.body` under the `whsec_` secret), checked as
 * its bytes pass, so a large body (a raw email with its attachments) streams on to where it goes
 * and is never held whole to be verified. Whatever the stream fed must be undone when `verified()`
 * is false at its end. The same signatures Cairn's own webhooks carry, so a sender can use that
 * specification's libraries.
 */

/** A signature older (or newer) than this is refused, as the specification's verifiers do: a replay window. */
const TOLERANCE_SECONDS = 5 * 60;

function refused(reason: string): ApiError {
  return new ApiError('PROVIDER_SIGNATURE_INVALID', { reason });
}

export class SignedBody extends Transform {
  private readonly hmac;
  private readonly signatures: Buffer[];
  private bytes = 0;
  /** The sender's id of this message (`webhook-id`). */
  readonly messageId: string;

  /** Throws 403 PROVIDER_SIGNATURE_INVALID at once when no secret is set or the headers cannot be right. */
  constructor(
    secret: string | null,
    headers: IncomingHttpHeaders,
    now: Date,
    private readonly maxBytes: number,
  ) {
    super();
    const id = headers['webhook-id'];
    const timestamp = headers['webhook-timestamp'];
    const signature = headers['webhook-signature'];
    if (!secret) throw refused('no inbound secret is configured');
    if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
      throw refused('webhook-id, webhook-timestamp and webhook-signature are required');
    }
    const seconds = Number(timestamp);
    if (!Number.isInteger(seconds) || Math.abs(now.getTime() / 1000 - seconds) > TOLERANCE_SECONDS) {
      throw refused('webhook-timestamp is not within five minutes of now');
    }
    this.messageId = id;
    this.signatures = signature
      .split(' ')
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => Buffer.from(entry.slice(3), 'base64'));
    this.hmac = createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'));
    this.hmac.update(`${id}.${timestamp}.`);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      done(new ApiError('PAYLOAD_TOO_LARGE', { maxBytes: this.maxBytes }));
      return;
    }
    this.hmac.update(chunk);
    done(null, chunk);
  }

  /** Once the body has passed whole: whether one of its signatures is the body's. */
  verified(): boolean {
    const expected = this.hmac.digest();
    return this.signatures.some((given) => given.length === expected.length && timingSafeEqual(given, expected));
  }
}

export function signatureRefused(): ApiError {
  return refused('the signature does not match the body');
}
