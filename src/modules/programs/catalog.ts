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

export const programsAuditActions = {
  PROGRAM_ENROLLED: 'A patient was enrolled in a program',
  PROGRAM_UPDATED: "An enrolment's status changed",
  PROGRAM_PHASE_CHANGED: 'An enrolment entered a phase',
  PROGRAM_UNASSIGNED: 'An enrolment was removed',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof programsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof programsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof programsAuditActions> {}
}
