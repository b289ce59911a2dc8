import type { NamesOf } from '../../wire/errors.ts';

/** What the cdts area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const cdtsPermissions = {
  CDT_READ: "Read patients' custom data (CDT) records",
  CDT_UPDATE: "Create, change and delete patients' custom data (CDT) records",
  CDT_RECORD_EXPORT: 'Export CDT records (API clients, /export/CDT_RECORD)',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof cdtsPermissions> {}
}
