import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the encounters area adds to the shared catalogs, beside its routes. */

export const encountersPermissions = {
  ENCOUNTER_READ: "Read patients' encounters, full encounters, their comments, dispositions and assessment links",
  ENCOUNTER_UPDATE: "Create, change and delete patients' encounters, their comments, dispositions and assessment links",
  ENCOUNTER_FINALIZED_UPDATE: 'Change or delete an encounter that is FINALIZED, and what hangs off it (DECISIONS §7)',
  ENCOUNTER_EXPORT: 'Export encounters (API clients, /export/ENCOUNTER)',
  ENCOUNTER_COMMENT_EXPORT: 'Export encounter comments (API clients, /export/ENCOUNTER_COMMENT)',
  ENCOUNTER_DISPOSITION_EXPORT: 'Export encounter dispositions (API clients, /export/ENCOUNTER_DISPOSITION)',
} as const;

export const encountersErrors = {
  INVALID_STATUS_TRANSITION: { status: 400, componentType: 'ENCOUNTER', message: 'This status change is not allowed' },
  ENCOUNTER_COMMENT_NOT_FOUND: { status: 404, componentType: 'ENCOUNTER', message: 'Encounter comment not found' },
  // An encounter another record names in its body (an assessment record's encounterId), not one
  // addressed by the path: those answer production's DT_RECORD_NOT_FOUND (DECISIONS §2).
  // Details {encounterId, patientId}.
  ENCOUNTER_NOT_FOUND: {
    status: 404,
    componentType: 'ENCOUNTER',
    message: 'The patient has no such encounter in this instance',
  },
} as const;

/** The events its records are (DECISIONS §9); invoices hang off ENCOUNTER_FINALIZED. */
export const encountersEvents = {
  ENCOUNTER: {
    description: 'Encounters (visits), their comments, dispositions and assessment links',
    subtypes: ['ENCOUNTER_CREATED', 'ENCOUNTER_UPDATED', 'ENCOUNTER_DELETED', 'ENCOUNTER_FINALIZED'],
  },
} as const satisfies EventCatalog;

export const encountersAuditActions = {
  ENCOUNTER_CREATED: { description: 'An encounter was created', events: ['ENCOUNTER_CREATED'] },
  ENCOUNTER_UPDATED: { description: 'An encounter was changed', events: ['ENCOUNTER_UPDATED'] },
  ENCOUNTER_DELETED: { description: 'An encounter was deleted', events: ['ENCOUNTER_DELETED'] },
  // Parts of an encounter are audited as themselves; the event they make is the encounter's
  // ENCOUNTER_UPDATED, naming the part (emitted by the write, operations.ts).
  ENCOUNTER_DISPOSITION_CREATED: { description: "An encounter's disposition was made", events: [] },
  ENCOUNTER_DISPOSITION_UPDATED: { description: "An encounter's disposition was changed", events: [] },
  ENCOUNTER_DISPOSITION_DELETED: { description: "An encounter's disposition went with it", events: [] },
  ENCOUNTER_ASSESSMENT_CREATED: { description: 'An assessment was linked to an encounter', events: [] },
  ENCOUNTER_ASSESSMENT_UPDATED: { description: "An encounter's assessment link was changed", events: [] },
  ENCOUNTER_ASSESSMENT_DELETED: { description: "An encounter's assessment link was removed", events: [] },
  ENCOUNTER_COMMENT_CREATED: { description: 'A comment was added to an encounter', events: [] },
  ENCOUNTER_COMMENT_UPDATED: { description: "An encounter's comment was changed", events: [] },
  ENCOUNTER_COMMENT_DELETED: { description: "An encounter's comment was removed", events: [] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof encountersPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof encountersErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof encountersAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof encountersEvents> {}
}
