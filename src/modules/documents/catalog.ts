import type { AuditActionCatalog } from '../../events/audit.ts';
import type { FileOwner } from '../../files/owners.ts';
import { MB } from '../../files/rules.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the documents area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const documentsPermissions = {
  DOCUMENT_READ: "Read patients' document summaries, their document type records and their files",
  DOCUMENT_UPDATE: "Create, change and delete patients' document summaries, their type records and files",
} as const;

/** What a summary's files may be: 000 lists jpg, jpeg, png and pdf; the sizes are Cairn's (000 shows none). */
export const documentFiles = {
  DOCUMENT_SUMMARY: {
    readPermission: 'DOCUMENT_READ',
    rules: { extensions: ['jpg', 'jpeg', 'png', 'pdf'], maxFileBytes: 25 * MB, maxFiles: 10, maxTotalBytes: 100 * MB },
  },
} as const satisfies Record<string, FileOwner>;

export const documentsAuditActions = {
  DOCUMENT_FILES_ADDED: { description: 'Files were uploaded to a document summary', events: ['CDT_UPDATED'] },
  DOCUMENT_FILES_REMOVED: { description: 'Files were removed from a document summary', events: ['CDT_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof documentsPermissions> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof documentsAuditActions> {}
}
