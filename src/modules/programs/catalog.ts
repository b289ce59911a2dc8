import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the programs area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const programsPermissions = {
  PROGRAM_READ: "Read patients' program enrolments",
  PROGRAM_UPDATE: 'Enrol and unassign patients, and move them between phases',
} as const;

export const programsErrors = {
  PROGRAM_NOT_FOUND: { status: 404, componentType: 'PATIENT_PROGRAM', message: 'No such program in the formation' },
  PATIENT_PROGRAM_NOT_FOUND: {
    status: 404,
    componentType: 'PATIENT_PROGRAM',
    message: "Patient related to program doesn't exist",
  },
} as const;

/** The events its records are (DECISIONS §9). */
export const programsEvents = {
  PROGRAM: {
    description: "A patient's enrolment in a program (created on enrolment, deleted on unassignment)",
    subtypes: ['PROGRAM_CREATED', 'PROGRAM_UPDATED', 'PROGRAM_DELETED', 'PROGRAM_PHASE_CHANGED'],
  },
} as const satisfies EventCatalog;

export const programsAuditActions = {
  PROGRAM_ENROLLED: { description: 'A patient was enrolled in a program', events: ['PROGRAM_CREATED'] },
  PROGRAM_UPDATED: { description: "An enrolment's status changed", events: ['PROGRAM_UPDATED'] },
  PROGRAM_PHASE_CHANGED: { description: 'An enrolment entered a phase', events: ['PROGRAM_UPDATED', 'PROGRAM_PHASE_CHANGED'] },
  PROGRAM_UNASSIGNED: { description: 'An enrolment was removed', events: ['PROGRAM_DELETED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof programsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof programsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof programsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof programsEvents> {}
}
