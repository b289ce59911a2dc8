import { type Static, Type } from 'typebox';
import { PageObject, PagingQuery } from '../../http/pagination.ts';
import { CdtRecord } from '../../records/cdt-view.ts';
import { Nullable, PatientParams, Uuid } from '../../wire/schemas.ts';
import { FileEntry, LinkedFileEntry } from '../files/index.ts';

/** The wire contract of document summaries (001 "Documents"; DECISIONS §7, §8; PROD-SHAPES "Document summary"). */

export const DocumentSummary = Type.Object(
  { ...CdtRecord.properties },
  {
    description:
      'A CDT record of `_document_summary`: jsonBody holds the system fields, `type` (a document type name) and `files` (null until a file is added; each `{id, size, storageKey, contentType, originalName}`, plus `url` and `thumbnailUrl` with signedUrls=true).',
  },
);

export const SummaryParams = PatientParams;
export const SummaryIdParams = Type.Object({ ...PatientParams.properties, summaryId: Uuid });
export const SummaryFileParams = Type.Object({ ...SummaryIdParams.properties, fileId: Uuid });
export const TypeRecordParams = Type.Object({ ...SummaryIdParams.properties, docType: Type.String({ maxLength: 100 }) });

export const SignedUrlsQuery = Type.Object({
  signedUrls: Type.Optional(
    Type.Boolean({ default: false, description: 'Add a 5-minute `url` (and `thumbnailUrl`) to each file' }),
  ),
});

export const SummaryListQuery = Type.Object({
  ...PagingQuery,
  sourceId: Type.Optional(Uuid),
  ...SignedUrlsQuery.properties,
});
export type SummaryListQueryInput = Static<typeof SummaryListQuery>;

export const SummaryList = Type.Object({ name: Type.String(), data: PageObject(DocumentSummary) });

/** Files kept by a PUT: entries as read (only `id` matters). */
const KeptFile = Type.Object({ id: Uuid }, { additionalProperties: true });

export const SummaryCreateBody = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 100, description: 'A document type name' }),
    files: Type.Optional(
      Nullable(Type.Array(KeptFile, { maxItems: 0, description: 'Must be empty: add files with POST /{id}/files' })),
    ),
    sourceId: Type.Optional(Nullable(Uuid)),
    sourceType: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    sourceName: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  },
  { additionalProperties: true },
);
export type SummaryCreateInput = Static<typeof SummaryCreateBody>;

export const SummaryUpdateBody = Type.Object(
  {
    type: Type.String({ minLength: 1, maxLength: 100 }),
    files: Type.Optional(
      Nullable(
        Type.Array(KeptFile, {
          maxItems: 1000,
          description:
            "The summary's files to keep; the others are deleted. Null or [] deletes all; leaving the key out keeps all.",
        }),
      ),
    ),
  },
  { additionalProperties: true },
);
export type SummaryUpdateInput = Static<typeof SummaryUpdateBody>;

export const TypeRecordBody = Type.Record(Type.String(), Type.Unknown(), {
  description: "The document type's custom field values, flat. Unknown and read-only keys are ignored.",
});

export const FileEntries = Type.Array(FileEntry);
export { LinkedFileEntry };
