import twilio from 'twilio';
import { Type } from 'typebox';

const { RequestClient } = twilio;

/**
 * What the SMS and voice drivers on Twilio share: a client of the `twilio` SDK, and the check of
 * the signature Twilio puts on every request it makes to Cairn (X-Twilio-Signature: HMAC-SHA1 of
 * the URL it called and its form parameters, under the account's auth token).
 */

export const TWILIO_API = 'https://api.twilio.com';

/**
 * The SDK's HTTP client, sending to another address than Twilio's: a Twilio-compatible endpoint
 * or the tests' local fake of Twilio's API (the server's configuration only: `baseUrl`).
 */
class RedirectedClient extends RequestClient {
  constructor(private readonly baseUrl: string) {
    super({ keepAlive: true });
  }

  override request<TData>(options: Parameters<InstanceType<typeof RequestClient>['request']>[0] & { data?: TData }) {
    return super.request<TData>({ ...options, uri: options.uri.replace(/^https:\/\/[a-z0-9.-]*twilio\.com/, this.baseUrl) });
  }
}

export interface TwilioAccount {
  accountSid: string;
  authToken: string;
  baseUrl?: string | undefined;
}

export function twilioClient(account: TwilioAccount) {
  const redirected = account.baseUrl && account.baseUrl !== TWILIO_API;
  return twilio(account.accountSid, account.authToken, {
    ...(redirected ? { httpClient: new RedirectedClient(account.baseUrl as string) } : {}),
    // Errors are Cairn's to retry, on its own schedule (the job queue).
    autoRetry: false,
  });
}

/** Whether a request Twilio made carries a good signature, for the URL it called (Cairn's public address and the path). */
export function twilioSigned(
  authToken: string,
  url: string,
  signature: string | undefined,
  params: Record<string, string>,
): boolean {
  return typeof signature === 'string' && twilio.validateRequest(authToken, signature, url, params);
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
