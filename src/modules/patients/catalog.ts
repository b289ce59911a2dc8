import type { NamesOf } from '../../wire/errors.ts';

/** What the patients area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const patientsPermissions = {
  PATIENT_READ: 'Read patients and search them',
  PATIENT_CREATE: 'Create patients',
  PATIENT_UPDATE: 'Change patients, one or in bulk (care teams, territories, cadence)',
  PATIENT_DELETE: 'Delete patients',
} as const;

export const patientsAuditActions = {
  PATIENT_CREATED: 'A patient was created',
  PATIENT_UPDATED: 'A patient was changed (its care team included)',
  PATIENT_DELETED: 'A patient and everything about them were deleted',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof patientsPermissions> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof patientsAuditActions> {}
}
