import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the apps area adds to the shared catalogs (merged in src/areas.ts). */

export const appsPermissions = {
  APP_READ: 'Read the SMART apps registered in the tenant (never their secrets)',
  APP_WRITE:
    "Register SMART apps, change their redirect URIs, scopes and whether they are enabled, and delete them: an app then acts for any user who allows it, within that user's roles",
  APP_LAUNCH:
    'Open a registered app for a patient (EHR launch): issues the launch value the app trades for the patient in context',
  IDENTITY_PROVIDER_READ: "Read the tenant's single sign-on identity providers (never their client secrets)",
  IDENTITY_PROVIDER_WRITE:
    "Add, change and remove the tenant's single sign-on identity providers: a provider's people then sign in as the users they match, or as new users when it creates them",
} as const;

export const appsErrors = {
  APP_NOT_FOUND: { status: 404, componentType: 'APP', message: 'App not found' },
  IDENTITY_PROVIDER_NOT_FOUND: { status: 404, componentType: 'IDENTITY_PROVIDER', message: 'Identity provider not found' },
} as const;

/** The events its records are (DECISIONS §9): ids and changed field names, never a secret. */
export const appsEvents = {
  APP: {
    description: 'SMART apps registered, changed or deleted through the admin routes (their secrets never appear in events)',
    subtypes: ['APP_CREATED', 'APP_UPDATED', 'APP_DELETED'],
  },
  IDENTITY_PROVIDER: {
    description:
      'Single sign-on identity providers added, changed or removed through the admin routes (their client secrets never appear in events)',
    subtypes: ['IDENTITY_PROVIDER_CREATED', 'IDENTITY_PROVIDER_UPDATED', 'IDENTITY_PROVIDER_DELETED'],
  },
} as const satisfies EventCatalog;

export const appsAuditActions = {
  APP_CREATED: { description: 'A SMART app was registered', events: ['APP_CREATED'] },
  APP_UPDATED: {
    description: 'A SMART app was renamed, enabled or disabled, or its redirect URIs, scopes or keys changed',
    events: ['APP_UPDATED'],
  },
  APP_SECRET_ROTATED: { description: "A confidential app's secret was replaced", events: ['APP_UPDATED'] },
  APP_DELETED: { description: 'A SMART app was deleted, with every token it held', events: ['APP_DELETED'] },
  IDENTITY_PROVIDER_CREATED: {
    description: 'A single sign-on identity provider was added',
    events: ['IDENTITY_PROVIDER_CREATED'],
  },
  IDENTITY_PROVIDER_UPDATED: {
    description:
      'An identity provider was renamed, enabled or disabled, or its issuer, client, matching or user creation changed',
    events: ['IDENTITY_PROVIDER_UPDATED'],
  },
  IDENTITY_PROVIDER_DELETED: {
    description: 'An identity provider was removed, with the links of its people to users',
    events: ['IDENTITY_PROVIDER_DELETED'],
  },
  // The sign-in itself writes nothing else: a link is the one record it leaves (no event: no one integrates on it).
  USER_IDENTITY_LINKED: {
    description: 'A person at an identity provider was linked to a user at their first single sign-on (entity: the user)',
    events: [],
  },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof appsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof appsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof appsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof appsEvents> {}
}
