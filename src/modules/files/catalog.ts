import type { NamesOf } from '../../wire/errors.ts';

/** What the files area adds to the shared catalogs (its errors are the files mechanism's). */
export const filesPermissions = {
  FILE_READ:
    "Read a file's entry by id with a fresh link (GET /files/{fileId}); the file's owner's read permission is needed too",
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof filesPermissions> {}
}
