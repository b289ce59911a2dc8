import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { FileOwner } from '../../files/owners.ts';
import { MB } from '../../files/rules.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the SMS area adds to the shared catalogs, beside its routes. */

export const smsPermissions = {
  SMS_READ: "Read patients' SMS messages and their attachments",
  SMS_EXPORT: 'Export SMS (API clients, /export/SMS)',
} as const;

export const smsErrors = {
  // PROD-SHAPES: details {id}.
  SMS_NOT_FOUND: { status: 404, componentType: 'SMS', message: 'SMS was not found' },
} as const;

/** MMS attachments: images and PDFs, within what carriers take (5 MB a message). */
export const smsFiles = {
  SMS: {
    readPermission: 'SMS_READ',
    rules: { extensions: ['jpg', 'jpeg', 'png', 'pdf'], maxFileBytes: 5 * MB, maxFiles: 10, maxTotalBytes: 5 * MB },
  },
} as const satisfies Record<string, FileOwner>;

export const smsEvents = {
  SMS: { description: 'SMS messages, sent and received', subtypes: ['SMS_CREATED', 'SMS_UPDATED', 'SMS_STATUS_CHANGED'] },
} as const satisfies EventCatalog;

export const smsAuditActions = {
  SMS_SENT: { description: 'An SMS was written and handed to the provider', events: ['SMS_CREATED'] },
  SMS_RECEIVED: { description: 'An SMS came in', events: ['SMS_CREATED'] },
  SMS_STATUS_CHANGED: { description: 'An SMS moved on: sent, delivered, undelivered or failed', events: ['SMS_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof smsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof smsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof smsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof smsEvents> {}
}
