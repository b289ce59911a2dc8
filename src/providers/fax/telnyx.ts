import { Readable } from 'node:stream';
import type Telnyx from 'telnyx';
import { type Static, Type } from 'typebox';
import { ProviderError } from '../channels.ts';
import type { FaxDriver } from './driver.ts';

/** The Telnyx fax driver's options, a tenant's or the server's (CAIRN_TELNYX_*). */
export const TelnyxOptions = Type.Object({
  apiKey: Type.String({ minLength: 8, maxLength: 300, description: 'An API v2 key' }),
  connectionId: Type.String({ minLength: 1, maxLength: 100, description: 'The Programmable Fax application that sends' }),
  publicKey: Type.String({
    pattern: '^[A-Za-z0-9+/]{43}=$',
    description: "Mission Control's public key (base64): checks the Ed25519 signature on Telnyx's webhooks",
  }),
  baseUrl: Type.String({
    default: 'https://api.telnyx.com/v2',
    description: "Telnyx's API (the server's configuration may point elsewhere)",
  }),
});

type Options = Static<typeof TelnyxOptions>;

/** Telnyx's fax webhooks in DECISIONS §8's words (fax.queued and fax.media.processed move nothing: it is SENDING already). */
const events: Record<string, string> = {
  'fax.sending.started': 'SENDING',
  'fax.delivered': 'DELIVERED',
  'fax.failed': 'FAILED',
};

/**
 * Faxes through Telnyx's Programmable Fax API with its SDK (`telnyx`): Telnyx fetches the fax's
 * files (PDF, images, DOCX) itself by 5-minute links at CAIRN_PUBLIC_URL, and reports to
 * `<public>/<tenant>/<instance>/providers/fax/telnyx/events`, each webhook signed with Ed25519 and
 * checked with the SDK against the account's public key. A fax received arrives there too, its
 * document fetched from the temporary link Telnyx gives.
 */
export async function telnyxFax(options: Record<string, unknown>): Promise<FaxDriver> {
  const o = options as Options;
  // Loaded when a Telnyx driver is first made: a server on the sandbox never loads the SDK.
  const { default: Telnyx } = await import('telnyx');
  const client = new Telnyx({ apiKey: o.apiKey, publicKey: o.publicKey, baseURL: o.baseUrl, maxRetries: 0 });
  return {
    async send(_scope, fax) {
      const urls = fax.files.map((file) => file.url);
      if (urls.some((url) => url === null)) {
        throw new ProviderError('NO_PUBLIC_URL', 'Telnyx fetches the fax’s files itself: set CAIRN_PUBLIC_URL', true);
      }
      try {
        const response = await client.faxes.create({
          connection_id: o.connectionId,
          to: fax.to,
          ...(fax.from ? { from: fax.from } : {}),
          // 1 file: its link; more: the list of links Telnyx also takes.
          media_url: (urls.length === 1 ? urls[0] : urls) as string,
          quality: fax.highQuality ? 'high' : 'normal',
          ...(fax.callbackBase ? { webhook_url: `${fax.callbackBase}/telnyx/events` } : {}),
        } as Telnyx.FaxCreateParams);
        const data = response.data;
        return { externalId: data?.id ?? '', status: 'SENDING', originalStatus: data?.status ?? null };
      } catch (error) {
        throw telnyxFailure(error);
      }
    },
    async fetchDocument(url) {
      const response = await fetch(url).catch(() => null);
      if (!response?.ok || !response.body) {
        throw new ProviderError(
          'TELNYX_MEDIA',
          `Telnyx did not give the fax's document (${response?.status ?? 'no answer'})`,
          false,
        );
      }
      return Readable.fromWeb(response.body as never);
    },
    callbacks: {
      async verify(request) {
        try {
          await client.webhooks.unwrap(request.body ?? '', { headers: request.headers as Record<string, string> });
          return true;
        } catch {
          return false;
        }
      },
      read(body) {
        const event = JSON.parse(body) as { data?: { event_type?: string; payload?: Record<string, unknown> } };
        const type = event.data?.event_type ?? '';
        const payload = event.data?.payload ?? {};
        const text = (key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : null);
        const pages = typeof payload.page_count === 'number' ? payload.page_count : null;
        if (type === 'fax.received') {
          return {
            received: {
              externalId: text('fax_id') ?? '',
              from: text('from') ?? '',
              to: text('to') ?? '',
              pages,
              contentUrl: text('media_url'),
            },
          };
        }
        const status = events[type];
        if (!status) return null;
        return {
          report: {
            externalId: text('fax_id') ?? '',
            status,
            originalStatus: text('status') ?? type,
            error: text('failure_reason'),
            ...(pages !== null ? { details: { pages } } : {}),
          },
        };
      },
    },
  };
}

/** The SDK's error as a provider's: a 4xx (but 429) refuses the fax for good; anything else may pass later. */
function telnyxFailure(error: unknown): ProviderError {
  const { status, message } = error as { status?: number; message?: string };
  const permanent = typeof status === 'number' && status >= 400 && status < 500 && status !== 429;
  return new ProviderError(`TELNYX_${status ?? 'ERROR'}`, message ?? 'Telnyx did not answer', permanent);
}
