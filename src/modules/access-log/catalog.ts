import type { NamesOf } from '../../wire/errors.ts';

/** What the access log's area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const accessLogPermissions = {
  ACCESS_LOG_READ: "Read the access log: who saw which patient's data, and when",
  ACCESS_LOG_EXPORT: 'Export the access log (GET /export/ACCESS_LOG): its records of the instance, oldest first',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof accessLogPermissions> {}
}
