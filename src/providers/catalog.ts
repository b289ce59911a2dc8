import type { NamesOf } from '../wire/errors.ts';

/** The error codes of what providers post to Cairn (inbound messages, status callbacks). */
export const providerErrors = {
  PROVIDER_SIGNATURE_INVALID: {
    status: 403,
    componentType: 'PROVIDER',
    message: 'The request is not signed with the secret configured for this provider, or its signature is too old',
  },
} as const;

declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof providerErrors> {}
}
