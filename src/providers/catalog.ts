import type { NamesOf } from '../wire/errors.ts';

/** The error codes of what providers post to Cairn (inbound messages, status callbacks). */
export const providerErrors = {
  PROVIDER_SIGNATURE_INVALID: {
    status: 403,
    componentType: 'PROVIDER',
    message: 'The request is not signed with the secret configured for this provider, or its signature is too old',
  },
  CHANNEL_NOT_AVAILABLE: { status: 400, componentType: 'PROVIDER', message: 'This server does not carry that channel yet' },
  // DECISIONS §8: a provider failure on a send answers 500, and the message record stays, FAILED.
  PROVIDER_FAILED: {
    status: 500,
    componentType: 'PROVIDER',
    message: 'The provider did not take the message: it is stored with status FAILED and the provider’s error',
  },
} as const;

declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof providerErrors> {}
}
