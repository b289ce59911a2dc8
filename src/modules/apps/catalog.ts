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
} as const;

export const appsErrors = {
  APP_NOT_FOUND: { status: 404, componentType: 'APP', message: 'App not found' },
} as const;

/** The events its records are (DECISIONS §9): ids and changed field names, never a secret. */
export const appsEvents = {
  APP: {
    description: 'SMART apps registered, changed or deleted through the admin routes (their secrets never appear in events)',
    subtypes: ['APP_CREATED', 'APP_UPDATED', 'APP_DELETED'],
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
