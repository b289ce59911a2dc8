import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the API clients area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const apiClientsPermissions = {
  API_CLIENT_READ: "Read the tenant's API clients and their roles (never their secrets)",
  API_CLIENT_WRITE:
    'Create API clients, change their names, roles and whether they are enabled, and rotate their secrets: as powerful as the strongest role it can grant',
} as const;

export const apiClientsErrors = {
  API_CLIENT_NOT_FOUND: { status: 404, componentType: 'API_CLIENT', message: 'API client not found' },
  API_CLIENT_LOCK_OUT: {
    status: 409,
    componentType: 'API_CLIENT',
    message: 'The calling API client may not disable itself or give up its own API_CLIENT_WRITE',
  },
} as const;

/** The events its records are (DECISIONS §9): ids and changed field names, never a secret. */
export const apiClientsEvents = {
  API_CLIENT: {
    description: 'API clients made or changed through the admin routes (their secrets never appear in events)',
    subtypes: ['API_CLIENT_CREATED', 'API_CLIENT_UPDATED'],
  },
} as const satisfies EventCatalog;

export const apiClientsAuditActions = {
  API_CLIENT_CREATED: { description: 'An API client was created', events: ['API_CLIENT_CREATED'] },
  API_CLIENT_UPDATED: {
    description: 'An API client was renamed, enabled or disabled, or its roles replaced',
    events: ['API_CLIENT_UPDATED'],
  },
  API_CLIENT_SECRET_ROTATED: { description: "An API client's secret was replaced", events: ['API_CLIENT_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof apiClientsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof apiClientsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof apiClientsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof apiClientsEvents> {}
}
