import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { FileOwner } from '../../files/owners.ts';
import { MB } from '../../files/rules.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the fax area adds to the shared catalogs, beside its routes. */

export const faxPermissions = {
  FAX_READ: 'Read faxes, sent and received, and their files',
  FAX_UPDATE: 'Write, change, delete and send faxes; mark received ones reviewed',
} as const;

export const faxErrors = {
  FAX_NOT_FOUND: { status: 404, componentType: 'FAX', message: 'Fax not found' },
  FAX_NOT_DRAFT: { status: 409, componentType: 'FAX', message: 'Only a draft fax can be changed that way or sent' },
  FAX_IN_FLIGHT: { status: 409, componentType: 'FAX', message: 'The fax is being sent: it can be deleted once it is done' },
  FAX_RECEIVER_MISSING: { status: 400, componentType: 'FAX', message: 'The fax has no receiver number to send to' },
  FAX_FILES_MISSING: { status: 400, componentType: 'FAX', message: 'The fax has no file to send' },
} as const;

/** 000 "Limits": up to 10 files and 100 MB in all a fax; jpg, jpeg, png, pdf, docx. */
export const faxFiles = {
  FAX: {
    readPermission: 'FAX_READ',
    rules: { extensions: ['jpg', 'jpeg', 'png', 'pdf', 'docx'], maxFileBytes: 100 * MB, maxFiles: 10, maxTotalBytes: 100 * MB },
  },
} as const satisfies Record<string, FileOwner>;

export const faxEvents = {
  FAX: {
    description: 'Faxes, drafts written, sent and received',
    subtypes: ['FAX_CREATED', 'FAX_UPDATED', 'FAX_DELETED', 'FAX_STATUS_CHANGED'],
  },
} as const satisfies EventCatalog;

export const faxAuditActions = {
  FAX_CREATED: { description: 'A fax draft was written', events: ['FAX_CREATED'] },
  FAX_UPDATED: { description: 'A fax was changed, or files added or removed', events: ['FAX_UPDATED'] },
  FAX_DELETED: { description: 'A fax was deleted with its files', events: ['FAX_DELETED'] },
  FAX_SENT: { description: 'A fax was sent: queued for its provider', events: ['FAX_UPDATED'] },
  FAX_STATUS_CHANGED: { description: 'A fax moved on: sending, sent, delivered or failed', events: ['FAX_UPDATED'] },
  FAX_RECEIVED: { description: 'A fax came in', events: ['FAX_CREATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof faxPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof faxErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof faxAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof faxEvents> {}
}
