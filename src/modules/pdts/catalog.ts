import type { NamesOf } from '../../wire/errors.ts';

/** What the pdts area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const pdtsPermissions = {
  PDT_READ: 'Read profile data (PDT) records',
  PDT_UPDATE: 'Create, change and delete profile data (PDT) records',
  // 000: PDT export has a permission of its own.
  PDT_RECORD_EXPORT: 'Export PDT records (API clients, /export/PDT_RECORD)',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof pdtsPermissions> {}
}
