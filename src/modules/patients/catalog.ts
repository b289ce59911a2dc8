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
  PATIENT_PURGE: 'Purge a patient: erase every record of theirs, keeping only what the law requires (docs/patient-purge.md)',
} as const;

export const patientsErrors = {
  PURGE_NOT_CONFIRMED: {
    status: 400,
    componentType: 'PATIENT',
    message: "A purge needs `confirm` to be the patient's id, as in the path",
  },
  PATIENT_PURGE_NOT_FOUND: { status: 404, componentType: 'PATIENT', message: 'Patient purge not found' },
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
  // A purge writes no event: an event would carry the patient's id to the outbox and the
  // webhooks' delivery log, which the purge empties of them (docs/patient-purge.md).
  PATIENT_PURGE_REQUESTED: { description: "A patient's purge was asked for (the patient's id only)", events: [] },
  PATIENT_PURGED: {
    description: "A patient was purged: every record of theirs erased but what the law keeps (the patient's id only)",
    events: [],
  },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof patientsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof patientsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof patientsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof patientsEvents> {}
}
