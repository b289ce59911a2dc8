import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the patients area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const patientsPermissions = {
  PATIENT_READ: 'Read patients and search them',
  PATIENT_CREATE: 'Create patients',
  PATIENT_UPDATE: 'Change patients, one or in bulk (care teams, territories, cadence)',
  PATIENT_DELETE: 'Delete patients',
  PATIENT_EXPORT: 'Export patients (API clients, /export/PATIENT)',
} as const;

/** The events its records are (DECISIONS §9). */
export const patientsEvents = {
  PATIENT: {
    description: 'Patients, their care teams included',
    subtypes: ['PATIENT_CREATED', 'PATIENT_UPDATED', 'PATIENT_DELETED'],
  },
} as const satisfies EventCatalog;

export const patientsAuditActions = {
  PATIENT_CREATED: { description: 'A patient was created', events: ['PATIENT_CREATED'] },
  PATIENT_UPDATED: { description: 'A patient was changed (its care team included)', events: ['PATIENT_UPDATED'] },
  PATIENT_DELETED: { description: 'A patient and everything about them were deleted', events: ['PATIENT_DELETED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof patientsPermissions> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof patientsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof patientsEvents> {}
}
