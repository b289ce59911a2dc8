import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { FileOwner } from '../../files/owners.ts';
import { MB } from '../../files/rules.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the email area adds to the shared catalogs, beside its routes. */

export const emailPermissions = {
  EMAIL_READ: "Read patients' email drafts and emails",
  EMAIL_UPDATE: "Write, change, delete and send patients' email drafts",
} as const;

export const emailErrors = {
  EMAIL_DRAFT_NOT_FOUND: { status: 404, componentType: 'EMAIL', message: 'Email draft not found' },
} as const;

/** Attachments of drafts: documents and images; the sizes are Cairn's (000 shows none for email). */
export const emailFiles = {
  EMAIL_DRAFT: {
    readPermission: 'EMAIL_READ',
    rules: { extensions: ['jpg', 'jpeg', 'png', 'pdf'], maxFileBytes: 10 * MB, maxFiles: 10, maxTotalBytes: 25 * MB },
  },
} as const satisfies Record<string, FileOwner>;

/** The events its records are (DECISIONS §9). */
export const emailEvents = {
  EMAIL: {
    description: 'Email drafts and emails',
    subtypes: ['EMAIL_DRAFT_CREATED', 'EMAIL_DRAFT_UPDATED', 'EMAIL_DRAFT_DELETED'],
  },
} as const satisfies EventCatalog;

export const emailAuditActions = {
  EMAIL_DRAFT_CREATED: { description: 'An email draft was written', events: ['EMAIL_DRAFT_CREATED'] },
  EMAIL_DRAFT_UPDATED: { description: 'An email draft was changed, or files added to it', events: ['EMAIL_DRAFT_UPDATED'] },
  EMAIL_DRAFT_DELETED: { description: 'An email draft was deleted', events: ['EMAIL_DRAFT_DELETED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof emailPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof emailErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof emailAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof emailEvents> {}
}
