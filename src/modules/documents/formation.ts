import { type Static, Type } from 'typebox';
import { FieldDefinition, Name, Title } from '../../formation/schemas.ts';
import { type FormationSection, withDefaults } from '../../formation/sections.ts';
import { fieldProblems, uniqueNames } from '../../formation/validate.ts';

/** Document summaries' types (001 "Documents"): custom fields of the summary's type record. */
export const DocumentType = Type.Object({
  name: Name,
  title: Title,
  fields: Type.Optional(Type.Array(FieldDefinition)),
});

export type DocumentTypeDefinition = Static<typeof DocumentType>;

declare module '../../formation/schemas.ts' {
  interface FormationSections {
    documentTypes?: DocumentTypeDefinition[];
  }
}

/** DECISIONS §6: the document types every instance has; a formation may redefine one by name to give it fields. */
export const defaultDocumentTypes: DocumentTypeDefinition[] = [
  { name: 'doc-type-assessment', title: 'Assessment', fields: [] },
  { name: 'doc-type-esign', title: 'E-signature', fields: [] },
  { name: 'doc-type-others', title: 'Others', fields: [] },
];

export const documentTypesSection: FormationSection = {
  key: 'documentTypes',
  route: 'document-types',
  schema: Type.Array(DocumentType),
  items: (formation) => withDefaults(defaultDocumentTypes, formation.documentTypes),
  problems(formation, add) {
    uniqueNames(formation.documentTypes ?? [], 'documentTypes', add);
    for (const [index, type] of (formation.documentTypes ?? []).entries()) {
      fieldProblems(type.fields ?? [], `documentTypes.${index}.fields`, add);
    }
  },
};
