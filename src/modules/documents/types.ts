import type { FieldDefinition } from '../../formation/field-types.ts';
import type { Formation } from '../../formation/schemas.ts';
import { systemType } from '../../records/types.ts';
import { type DocumentTypeDefinition, defaultDocumentTypes } from './formation.ts';

/** 001 "Document summary": a CDT record of this system type, which the generic CDT routes cannot edit. */
export const DOCUMENT_SUMMARY = '_document_summary';

/** What files of a summary are, in the `files` table (the owner kind the area declares, catalog.ts). */
export const SUMMARY_FILES = 'DOCUMENT_SUMMARY';

export const documentSummary = systemType({
  name: DOCUMENT_SUMMARY,
  fields: () => [{ name: 'type', type: 'text', required: true }],
});

/** DECISIONS §6: the three defaults always exist; the formation may add types, or give a default fields. */
export function documentTypes(formation: Formation): DocumentTypeDefinition[] {
  const own = formation.documentTypes ?? [];
  const defaults = defaultDocumentTypes.filter((type) => !own.some((candidate) => candidate.name === type.name));
  return [...defaults, ...own];
}

export function findDocumentType(formation: Formation, name: string): DocumentTypeDefinition | undefined {
  return documentTypes(formation).find((type) => type.name === name);
}

/** A summary's document type record: a CDT record named by the type, its fields the type's. */
export function documentTypeRecord(name: string) {
  return systemType({
    name,
    fields: (formation) => (findDocumentType(formation, name)?.fields ?? []) as FieldDefinition[],
  });
}
