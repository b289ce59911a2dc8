import type { NamesOf } from '../../wire/errors.ts';

/** What the assessments area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const assessmentsPermissions = {
  ASSESSMENT_READ: "Read patients' assessment records",
  ASSESSMENT_UPDATE: "Create, answer, complete and delete patients' assessment records",
} as const;

export const assessmentsErrors = {
  // prod (DECISIONS §2, PROD-SHAPES): details {recordId, patientId}.
  ASSESSMENT_RECORD_NOT_FOUND: {
    status: 404,
    componentType: 'ASSESSMENT',
    message: 'Assessment record for patient not found',
  },
} as const;

export const assessmentsAuditActions = {
  ASSESSMENT_RECORD_CREATED: 'An assessment record was created',
  ASSESSMENT_RECORD_UPDATED: 'An assessment record or its answers were changed',
  ASSESSMENT_RECORD_COMPLETED: 'An assessment record was completed for the first time',
  ASSESSMENT_RECORD_RECOMPLETED: 'An assessment record that had been completed was completed again',
  ASSESSMENT_RECORD_DELETED: 'An assessment record was deleted',
} as const;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof assessmentsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof assessmentsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof assessmentsAuditActions> {}
}
