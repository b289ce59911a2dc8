import type { NamesOf } from '../../wire/errors.ts';

/** What the auth area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const authErrors = {
  INVALID_CLIENT_CREDENTIALS: {
    status: 401,
    componentType: 'AUTH',
    message: 'The API client key or secret is wrong, or the client is disabled',
  },
  INVALID_USER_CREDENTIALS: {
    status: 401,
    componentType: 'AUTH',
    message: 'The username or password is wrong, or password access is off',
  },
} as const;

declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof authErrors> {}
}
