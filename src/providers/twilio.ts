import type twilio from 'twilio';
import { Type } from 'typebox';

/**
 * What the SMS and voice drivers on Twilio share: a client of the `twilio` SDK, and the check of
 * the signature Twilio puts on every request it makes to Cairn (X-Twilio-Signature: HMAC-SHA1 of
 * the URL it called and its form parameters, under the account's auth token). The SDK is loaded
 * when a Twilio driver is first made, never by a server whose SMS and voice are on the sandbox.
 */

export const TWILIO_API = 'https://api.twilio.com';

export type TwilioSdk = typeof twilio;

export interface TwilioAccount {
  accountSid: string;
  authToken: string;
  baseUrl?: string | undefined;
}

/** An account's way into Twilio: the SDK (for TwiML), its REST client, and the check of Twilio's signatures. */
export interface TwilioAccess {
  sdk: TwilioSdk;
  client: twilio.Twilio;
  /** Whether a request Twilio made carries a good signature, for the URL it called (Cairn's public address and the path). */
  signed(url: string, signature: string | undefined, params: Record<string, string>): boolean;
}

export async function twilioAccess(account: TwilioAccount): Promise<TwilioAccess> {
  const { default: sdk } = await import('twilio');
  const redirected = account.baseUrl && account.baseUrl !== TWILIO_API;
  const client = sdk(account.accountSid, account.authToken, {
    ...(redirected ? { httpClient: redirectedClient(sdk, account.baseUrl as string) } : {}),
    // Errors are Cairn's to retry, on its own schedule (the job queue).
    autoRetry: false,
  });
  return {
    sdk,
    client,
    signed: (url, signature, params) =>
      typeof signature === 'string' && sdk.validateRequest(account.authToken, signature, url, params),
  };
}

/**
 * The SDK's HTTP client, sending to another address than Twilio's: a Twilio-compatible endpoint
 * or the tests' local fake of Twilio's API (the server's configuration only: `baseUrl`).
 */
function redirectedClient(sdk: TwilioSdk, baseUrl: string): twilio.RequestClient {
  class RedirectedClient extends sdk.RequestClient {
    override request<TData>(options: Parameters<twilio.RequestClient['request']>[0] & { data?: TData }) {
      return super.request<TData>({ ...options, uri: options.uri.replace(/^https:\/\/[a-z0-9.-]*twilio\.com/, baseUrl) });
    }
  }
  return new RedirectedClient({ keepAlive: true });
}

/** The server's Twilio account (CAIRN_TWILIO_*): the SMS and the voice slot read the same variables. */
export const twilioVariables = {
  CAIRN_TWILIO_ACCOUNT_SID: Type.String({
    default: '',
    description: 'Twilio account SID (CAIRN_SMS_DRIVER or CAIRN_VOICE_DRIVER twilio).',
  }),
  CAIRN_TWILIO_AUTH_TOKEN: Type.String({ default: '', description: 'Twilio auth token.' }),
  CAIRN_TWILIO_BASE_URL: Type.String({
    default: TWILIO_API,
    description: "Twilio's API address (a compatible endpoint, or a local fake in tests).",
  }),
};

/** The Twilio driver's options from those variables. */
export function twilioAccountOf(e: {
  CAIRN_TWILIO_ACCOUNT_SID: string;
  CAIRN_TWILIO_AUTH_TOKEN: string;
  CAIRN_TWILIO_BASE_URL: string;
}) {
  return {
    ...(e.CAIRN_TWILIO_ACCOUNT_SID ? { accountSid: e.CAIRN_TWILIO_ACCOUNT_SID } : {}),
    ...(e.CAIRN_TWILIO_AUTH_TOKEN ? { authToken: e.CAIRN_TWILIO_AUTH_TOKEN } : {}),
    baseUrl: e.CAIRN_TWILIO_BASE_URL,
  };
}
