import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the users area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const usersPermissions = {
  USER_READ: 'Read users and their territories',
  USER_PROVISION: 'Create, change and delete users, and set their passwords (000: User Provision)',
  USER_REGIONS: "Write users' regions and territories (000: User Regions)",
} as const;

export const usersErrors = {
  USER_NOT_FOUND: { status: 404, componentType: 'USER', message: "User doesn't exist" },
  USER_TERRITORIES_NOT_FOUND: { status: 404, componentType: 'USER', message: 'The user has no territories record' },
  PRACTITIONER_ROLE_NOT_FOUND: { status: 404, componentType: 'USER', message: 'The user holds no role in this instance' },
} as const;

/** The events its records are (DECISIONS §9). */
export const usersEvents = {
  USER: {
    description: 'Users (care-team members), their grants, territories and passwords included',
    subtypes: ['USER_CREATED', 'USER_UPDATED', 'USER_DELETED'],
  },
} as const satisfies EventCatalog;

export const usersAuditActions = {
  USER_CREATED: { description: 'A user was created', events: ['USER_CREATED'] },
  USER_UPDATED: { description: 'A user was changed or replaced', events: ['USER_UPDATED'] },
  USER_DELETED: { description: 'A user was deleted (soft)', events: ['USER_DELETED'] },
  USER_PASSWORD_SET: { description: "A user's password was set", events: ['USER_UPDATED'] },
  USER_TERRITORIES_UPDATED: { description: "A user's territories were replaced", events: ['USER_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof usersPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof usersErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof usersAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof usersEvents> {}
}
