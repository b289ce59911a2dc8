import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the contacts area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const contactsPermissions = {
  GENERAL_MY_PATIENTS_READ_UPDATE: "Read and change patients' contacts (000: General - My Patients - Read and Update)",
} as const;

export const contactsErrors = {
  CONTACT_NOT_FOUND: { status: 404, componentType: 'CONTACT', message: 'Contact not found' },
} as const;

/** The events its records are (DECISIONS §9). */
export const contactsEvents = {
  CONTACT: { description: "A patient's contacts", subtypes: ['CONTACT_CREATED', 'CONTACT_UPDATED'] },
} as const satisfies EventCatalog;

export const contactsAuditActions = {
  CONTACT_CREATED: { description: 'A contact was added to a patient', events: ['CONTACT_CREATED'] },
  CONTACT_UPDATED: { description: 'A contact was changed', events: ['CONTACT_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof contactsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof contactsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof contactsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof contactsEvents> {}
}
