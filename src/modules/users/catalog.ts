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
} as const;

export const usersAuditActions = {
  USER_CREATED: 'A user was created',
  USER_UPDATED: 'A user was changed or replaced',
  USER_DELETED: 'A user was deleted (soft)',
  USER_PASSWORD_SET: "A user's password was set",
  USER_TERRITORIES_UPDATED: "A user's territories were replaced",
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof usersPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof usersErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof usersAuditActions> {}
}
