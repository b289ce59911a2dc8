import type { NamesOf } from '../../wire/errors.ts';

/** What the pdts area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const pdtsPermissions = {
  PDT_READ: 'Read profile data (PDT) records',
  PDT_UPDATE: 'Create, change and delete profile data (PDT) records',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof pdtsPermissions> {}
}
