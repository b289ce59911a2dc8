import { type Static, Type } from 'typebox';
import { ProviderError } from '../channels.ts';
import { TWILIO_API, twilioAccess } from '../twilio.ts';
import type { SmsDriver } from './driver.ts';

/** The Twilio SMS driver's options, a tenant's or the server's (CAIRN_TWILIO_*). */
export const TwilioOptions = Type.Object({
  accountSid: Type.String({ pattern: '^AC[0-9a-fA-F]{32}$', description: 'The account SID (AC…)' }),
  authToken: Type.String({ minLength: 8, maxLength: 200, description: 'Signs Cairn’s calls and Twilio’s callbacks' }),
  messagingServiceSid: Type.Optional(
    Type.String({
      pattern: '^MG[0-9a-fA-F]{32}$',
      description: 'Send through this messaging service rather than from the instance phone',
    }),
  ),
  baseUrl: Type.String({
    default: TWILIO_API,
    description: "Twilio's API (the server's configuration may point at a compatible endpoint)",
  }),
});

type Options = Static<typeof TwilioOptions>;

/** Twilio's MessageStatus in DECISIONS §8's words. */
const statuses: Record<string, string> = {
  accepted: 'ACCEPTED',
  queued: 'ACCEPTED',
  scheduled: 'SCHEDULED',
  sending: 'SENT',
  sent: 'SENT',
  delivered: 'DELIVERED',
  undelivered: 'UNDELIVERED',
  failed: 'FAILED',
  received: 'RECEIVED',
  read: 'DELIVERED',
  canceled: 'FAILED',
};

/**
 * Sends through Twilio's Messages API with the `twilio` SDK; delivery reports come back to
 * `<public>/<tenant>/<instance>/providers/sms/twilio/status`, inbound messages (the number's
 * webhook) to `.../providers/sms/twilio/inbound`, each signed by Twilio and checked with the SDK.
 */
export async function twilioSms(options: Record<string, unknown>): Promise<SmsDriver> {
  const o = options as Options;
  const { client, signed } = await twilioAccess(o);
  return {
    async send(_scope, sms) {
      const mediaUrls = sms.attachments.map((attachment) => attachment.url);
      if (mediaUrls.some((url) => url === null)) {
        throw new ProviderError('NO_PUBLIC_URL', 'Twilio fetches attachments itself: set CAIRN_PUBLIC_URL', true);
      }
      try {
        const message = await client.messages.create({
          to: sms.to,
          body: sms.body,
          ...(o.messagingServiceSid ? { messagingServiceSid: o.messagingServiceSid } : { from: sms.from }),
          ...(mediaUrls.length > 0 ? { mediaUrl: mediaUrls as string[] } : {}),
          ...(sms.callbackBase ? { statusCallback: `${sms.callbackBase}/twilio/status` } : {}),
        });
        return { externalId: message.sid, status: statuses[message.status] ?? 'ACCEPTED' };
      } catch (error) {
        throw twilioFailure(error);
      }
    },
    callbacks: {
      verify: (request) => signed(request.url, request.headers['x-twilio-signature'] as string, request.params),
      inbound: (params) => ({
        from: params.From ?? '',
        to: params.To ?? '',
        message: params.Body ?? '',
        externalId: params.MessageSid ?? params.SmsSid ?? '',
        mediaUrls: Array.from({ length: Number(params.NumMedia ?? 0) }, (_, index) => params[`MediaUrl${index}`] ?? '').filter(
          Boolean,
        ),
      }),
      status: (params) => ({
        externalId: params.MessageSid ?? params.SmsSid ?? '',
        status: statuses[params.MessageStatus ?? params.SmsStatus ?? ''] ?? 'ACCEPTED',
        error: params.ErrorCode
          ? `Twilio error ${params.ErrorCode}${params.ErrorMessage ? `: ${params.ErrorMessage}` : ''}`
          : null,
      }),
      answer: { contentType: 'text/xml', body: '<?xml version="1.0" encoding="UTF-8"?><Response></Response>' },
    },
  };
}

/**
 * The SDK's error as a provider's: Twilio answers a request it will never take (a 4xx: an invalid
 * number, an unverified sender, a blocked recipient) with its code, and such a send is refused for
 * good; a 429, a 5xx or a lost connection may pass later.
 */
export function twilioFailure(error: unknown): ProviderError {
  const { status, code, message } = error as { status?: number; code?: number | string; message?: string };
  const permanent = typeof status === 'number' && status >= 400 && status < 500 && status !== 429;
  return new ProviderError(`TWILIO_${code ?? status ?? 'ERROR'}`, message ?? 'Twilio did not answer', permanent);
}
