import type { AuditActionCatalog } from '../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../events/outbox.ts';
import type { NamesOf } from '../wire/errors.ts';

/** The records kernel's error codes and audit actions, for every kind of formation-typed record. */
export const recordErrors = {
  DICTIONARY_READ_ONLY: { status: 400, componentType: 'DICTIONARY', message: 'This dictionary cannot be changed' },
  CDT_NOT_FOUND: { status: 404, componentType: 'CDT', message: 'No such custom data type in the formation' },
  // prod: CDT records, encounters and document summaries answer this one.
  DT_RECORD_NOT_FOUND: { status: 404, componentType: 'CDT', message: 'DT record not found' },
  PDT_NOT_FOUND: { status: 404, componentType: 'PDT', message: 'No such profile data type in the formation' },
  PDT_RECORD_NOT_FOUND: { status: 404, componentType: 'PDT', message: 'PDT record not found' },
  DICTIONARY_NOT_FOUND: { status: 404, componentType: 'DICTIONARY', message: 'No such dictionary' },
  DICTIONARY_RECORD_NOT_FOUND: { status: 404, componentType: 'DICTIONARY', message: 'Dictionary record not found' },
} as const;

/** Formation-typed records as events: a CDT record (document summaries among them) is a CDT event, naming its type. */
export const recordEvents = {
  CDT: {
    description: "CDT records, of the formation's types and of system types (document summaries)",
    subtypes: ['CDT_CREATED', 'CDT_UPDATED', 'CDT_DELETED'],
  },
  PDT: { description: 'PDT records', subtypes: ['PDT_CREATED', 'PDT_UPDATED', 'PDT_DELETED'] },
  DICTIONARY: { description: 'Dictionary values', subtypes: ['DICTIONARY_CREATED', 'DICTIONARY_UPDATED', 'DICTIONARY_DELETED'] },
} as const satisfies EventCatalog;

export const recordAuditActions = {
  CDT_RECORD_CREATED: { description: 'A CDT record (of a formation type or a system type) was created', events: ['CDT_CREATED'] },
  CDT_RECORD_UPDATED: { description: "A CDT record's values changed", events: ['CDT_UPDATED'] },
  CDT_RECORD_DELETED: { description: 'A CDT record was deleted', events: ['CDT_DELETED'] },
  PDT_RECORD_CREATED: { description: 'A PDT record was created', events: ['PDT_CREATED'] },
  PDT_RECORD_UPDATED: { description: "A PDT record's values changed", events: ['PDT_UPDATED'] },
  PDT_RECORD_DELETED: { description: 'A PDT record was marked deleted', events: ['PDT_DELETED'] },
  DICTIONARY_RECORD_UPDATED: { description: "A dictionary record's values were replaced", events: ['DICTIONARY_UPDATED'] },
  DICTIONARY_RECORD_DELETED: { description: 'A dictionary record was marked deleted', events: ['DICTIONARY_DELETED'] },
} as const satisfies AuditActionCatalog;

declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof recordErrors> {}
}
declare module '../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof recordAuditActions> {}
}
declare module '../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof recordEvents> {}
}
