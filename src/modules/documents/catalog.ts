import type { NamesOf } from '../../wire/errors.ts';

/** What the documents area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const documentsPermissions = {
  DOCUMENT_READ: "Read patients' document summaries, their document type records and their files",
  DOCUMENT_UPDATE: "Create, change and delete patients' document summaries, their type records and files",
} as const;

export const documentsAuditActions = {
  DOCUMENT_FILES_ADDED: 'Files were uploaded to a document summary',
  DOCUMENT_FILES_REMOVED: 'Files were removed from a document summary',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof documentsPermissions> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof documentsAuditActions> {}
}
