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

export const recordAuditActions = {
  CDT_RECORD_CREATED: 'A CDT record (of a formation type or a system type) was created',
  CDT_RECORD_UPDATED: "A CDT record's values changed",
  CDT_RECORD_DELETED: 'A CDT record was deleted',
  PDT_RECORD_CREATED: 'A PDT record was created',
  PDT_RECORD_UPDATED: "A PDT record's values changed",
  PDT_RECORD_DELETED: 'A PDT record was marked deleted',
  DICTIONARY_RECORD_UPDATED: "A dictionary record's values were replaced",
  DICTIONARY_RECORD_DELETED: 'A dictionary record was marked deleted',
} as const;

declare module '../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof recordErrors> {}
}
declare module '../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof recordAuditActions> {}
}
