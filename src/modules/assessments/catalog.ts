import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the assessments area adds to the shared catalogs, beside its routes (merged in src/areas.ts). */

export const assessmentsPermissions = {
  ASSESSMENT_READ: "Read patients' assessment records",
  ASSESSMENT_UPDATE: "Create, answer, complete and delete patients' assessment records",
  ASSESSMENT_EXPORT: 'Export assessment records (API clients, /export/ASSESSMENT)',
  PFA_EXPORT: 'Export patient-facing assessment records (API clients, /export/PFA)',
} as const;

export const assessmentsErrors = {
  // prod (DECISIONS §2, PROD-SHAPES): details {recordId, patientId}.
  ASSESSMENT_RECORD_NOT_FOUND: {
    status: 404,
    componentType: 'ASSESSMENT',
    message: 'Assessment record for patient not found',
  },
} as const;

/** The events its records are (DECISIONS §9). */
export const assessmentsEvents = {
  ASSESSMENT: {
    description: 'Assessment records',
    subtypes: ['ASSESSMENT_CREATED', 'ASSESSMENT_UPDATED', 'ASSESSMENT_DELETED', 'ASSESSMENT_COMPLETED'],
  },
} as const satisfies EventCatalog;

export const assessmentsAuditActions = {
  ASSESSMENT_RECORD_CREATED: { description: 'An assessment record was created', events: ['ASSESSMENT_CREATED'] },
  ASSESSMENT_RECORD_UPDATED: { description: 'An assessment record or its answers were changed', events: ['ASSESSMENT_UPDATED'] },
  ASSESSMENT_RECORD_COMPLETED: {
    description: 'An assessment record was completed for the first time',
    events: ['ASSESSMENT_COMPLETED'],
  },
  ASSESSMENT_RECORD_RECOMPLETED: {
    description: 'An assessment record that had been completed was completed again',
    events: ['ASSESSMENT_COMPLETED'],
  },
  ASSESSMENT_RECORD_DELETED: { description: 'An assessment record was deleted', events: ['ASSESSMENT_DELETED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof assessmentsPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof assessmentsErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof assessmentsAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof assessmentsEvents> {}
}
