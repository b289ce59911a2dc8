import type { NamesOf } from '../../wire/errors.ts';

/** What the contacts area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const contactsPermissions = {
  GENERAL_MY_PATIENTS_READ_UPDATE: "Read and change patients' contacts (000: General - My Patients - Read and Update)",
} as const;

export const contactsErrors = {
  CONTACT_NOT_FOUND: { status: 404, componentType: 'CONTACT', message: 'Contact not found' },
} as const;

export const contactsAuditActions = {
  CONTACT_CREATED: 'A contact was added to a patient',
  CONTACT_UPDATED: 'A contact was changed',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof contactsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof contactsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof contactsAuditActions> {}
}
