import type { NamesOf } from '../../wire/errors.ts';

/** What the audit area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const auditPermissions = {
  AUDIT_READ: 'Read the audit log',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof auditPermissions> {}
}
