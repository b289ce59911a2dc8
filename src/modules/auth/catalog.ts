import type { AuditActionCatalog } from '../../events/audit.ts';
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
  MFA_REQUIRED: {
    status: 401,
    componentType: 'AUTH',
    message: 'A one-time code is required: send `code`',
  },
  INVALID_MFA_CODE: {
    status: 401,
    componentType: 'AUTH',
    message: 'The one-time code is wrong, expired or already used',
  },
  MFA_ALREADY_ENROLLED: {
    status: 409,
    componentType: 'AUTH',
    message: 'The user already has a confirmed second factor: remove it first',
  },
  MFA_ENROLLMENT_REQUIRED: {
    status: 403,
    componentType: 'AUTH',
    message:
      'The tenant requires a second factor: add one (POST /auth/mfa/totp, then /auth/mfa/totp/confirm), then sign in with its code',
  },
  MFA_NOT_ENROLLED: {
    status: 409,
    componentType: 'AUTH',
    message: 'The user has no second factor to confirm, renew or remove',
  },
} as const;

/**
 * A user's second factor changes are the user's (entity USER): they write USER_UPDATED, as a password
 * set does, naming no values.
 */
export const authAuditActions = {
  USER_MFA_ENROLLED: { description: "A user's TOTP second factor was confirmed", events: ['USER_UPDATED'] },
  USER_MFA_RECOVERY_CODES_REPLACED: { description: "A user's recovery codes were replaced", events: ['USER_UPDATED'] },
  USER_MFA_REMOVED: { description: "A user's second factor was removed", events: ['USER_UPDATED'] },
  SIGN_IN_POLICY_UPDATED: { description: "The tenant's sign-in policy (a second factor required or not) was set", events: [] },
} as const satisfies AuditActionCatalog;

declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof authErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof authAuditActions> {}
}
