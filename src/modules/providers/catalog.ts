import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the providers area adds to the shared catalogs, beside its routes. */

export const providersPermissions = {
  PROVIDER_MANAGE:
    'Read and set which driver carries each outside service (email, SMS, ...) for the tenant or one instance, with its options and credentials',
} as const;

export const providersErrors = {
  PROVIDER_CHANNEL_NOT_FOUND: { status: 404, componentType: 'PROVIDER', message: 'No outside service of that name' },
  PROVIDER_SETTINGS_NOT_FOUND: {
    status: 404,
    componentType: 'PROVIDER',
    message: 'No configuration of this outside service is stored at that level',
  },
} as const;

/** Configurations are records too (DECISIONS §9); their events name the channel and driver, never an option. */
export const providersEvents = {
  PROVIDER: {
    description: "Configurations of outside services (a tenant's or an instance's driver and options)",
    subtypes: ['PROVIDER_SETTINGS_UPDATED', 'PROVIDER_SETTINGS_DELETED'],
  },
} as const satisfies EventCatalog;

export const providersAuditActions = {
  PROVIDER_SETTINGS_UPDATED: {
    description: "An outside service's driver or options were set, for the tenant or an instance",
    events: ['PROVIDER_SETTINGS_UPDATED'],
  },
  PROVIDER_SETTINGS_DELETED: {
    description: "A configuration of an outside service was removed (the tenant's, or the server's, applies again)",
    events: ['PROVIDER_SETTINGS_DELETED'],
  },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof providersPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof providersErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof providersAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof providersEvents> {}
}
