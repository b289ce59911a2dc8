import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { FileOwner } from '../../files/owners.ts';
import { MB } from '../../files/rules.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the email area adds to the shared catalogs, beside its routes. */

export const emailPermissions = {
  EMAIL_READ: "Read patients' email drafts and emails",
  EMAIL_UPDATE: "Write, change, delete and send patients' email drafts",
  EMAIL_EXPORT: 'Export emails (API clients, /export/EMAIL)',
} as const;

export const emailErrors = {
  EMAIL_DRAFT_NOT_FOUND: { status: 404, componentType: 'EMAIL', message: 'Email draft not found' },
  // PROD-SHAPES: details {patientId, id}.
  EMAIL_NOT_FOUND: { status: 404, componentType: 'EMAIL', message: 'Email is not found' },
  EMAIL_ADDRESS_MISSING: {
    status: 400,
    componentType: 'EMAIL',
    message: 'The draft has no address to send to: set patientEmail, or give the patient or contact an email',
  },
  EMAIL_SCHEDULED_IN_PAST: {
    status: 400,
    componentType: 'EMAIL',
    message: 'scheduledAt is in the past: clear it to send now, or choose a later time',
  },
} as const;

/**
 * Attachments of drafts, and of the emails they become (the files move with the send): documents
 * and images; the sizes are Cairn's (000 shows none for email), within what mail relays take (25 MB).
 */
const attachmentRules = {
  extensions: ['jpg', 'jpeg', 'png', 'pdf'],
  maxFileBytes: 10 * MB,
  maxFiles: 10,
  maxTotalBytes: 25 * MB,
};
export const emailFiles = {
  EMAIL_DRAFT: { readPermission: 'EMAIL_READ', rules: attachmentRules },
  EMAIL: { readPermission: 'EMAIL_READ', rules: attachmentRules },
} as const satisfies Record<string, FileOwner>;

/** The events its records are (DECISIONS §9). */
export const emailEvents = {
  EMAIL: {
    description: 'Email drafts and emails',
    subtypes: [
      'EMAIL_DRAFT_CREATED',
      'EMAIL_DRAFT_UPDATED',
      'EMAIL_DRAFT_DELETED',
      'EMAIL_CREATED',
      'EMAIL_UPDATED',
      'EMAIL_STATUS_CHANGED',
    ],
  },
} as const satisfies EventCatalog;

export const emailAuditActions = {
  EMAIL_DRAFT_CREATED: { description: 'An email draft was written', events: ['EMAIL_DRAFT_CREATED'] },
  EMAIL_DRAFT_UPDATED: { description: 'An email draft was changed, or files added to it', events: ['EMAIL_DRAFT_UPDATED'] },
  EMAIL_DRAFT_DELETED: { description: 'An email draft was deleted', events: ['EMAIL_DRAFT_DELETED'] },
  EMAIL_DRAFT_SENT: { description: 'An email draft was sent: it became an email', events: ['EMAIL_DRAFT_DELETED'] },
  EMAIL_SENT: { description: 'An email was written to be sent (now or at scheduledAt)', events: ['EMAIL_CREATED'] },
  EMAIL_RECEIVED: { description: 'An email came in', events: ['EMAIL_CREATED'] },
  EMAIL_STATUS_CHANGED: {
    description: 'An email moved on: handed to the provider, delivered, rejected or failed',
    events: ['EMAIL_UPDATED'],
  },
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
