import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import {
  absent,
  attachmentOf,
  compact,
  dateParam,
  type FhirAt,
  type FhirParam,
  type FhirResource,
  type FileJson,
  filesColumn,
  fixedToken,
  nothing,
  practitionerColumn,
  reference,
  referenceParam,
  tokenOf,
} from '../../http/fhir.ts';
import { documentFiles } from './catalog.ts';
import { DOCUMENT_SUMMARY, SUMMARY_FILES } from './types.ts';

/**
 * A patient's document summary as a FHIR R4 DocumentReference, profiled as US Core 6.1.0
 * DocumentReference, its files composed into the same statement as its attachments, each linked
 * to `Binary/{fileId}` (binary-fhir.ts), which needs the token as this read does. Each field's
 * mapping is in docs/fhir.md.
 */

export const DOCUMENT_ID_SYSTEM = 'https://cairn.health/fhir/sid/document-id';
/** The formation's document types (doc-type-assessment, doc-type-esign, ...): what Cairn calls a document's kind. */
export const DOCUMENT_TYPE_SYSTEM = 'https://cairn.health/fhir/CodeSystem/document-type';
/**
 * Cairn's one category of documents. US Core's only code, `clinical-note`, says the document is a
 * clinical note, which Cairn does not know of a patient's upload; the binding is extensible.
 */
export const DOCUMENT_CATEGORY_SYSTEM = 'https://cairn.health/fhir/CodeSystem/document-category';
const PATIENT_DOCUMENT = { system: DOCUMENT_CATEGORY_SYSTEM, code: 'patient-document', display: 'Patient document' };

/** US Core's code for a document type without a LOINC code (us-core-documentreference-type). */
const UNKNOWN_TYPE = { system: 'http://terminology.hl7.org/CodeSystem/v3-NullFlavor', code: 'UNK', display: 'unknown' };

/** DocumentReferenceStatus: a summary is current until deleted (then gone, not superseded). */
const STATUSES = ['current', 'superseded', 'entered-in-error'];

type DocumentRow = Row<'cdt_records'> & { files: FileJson[]; author_id: string | null };

const typeOf = (row: DocumentRow) => String((row.values as { type?: unknown }).type ?? '');

function documentReferenceOf(row: DocumentRow, at: FhirAt | undefined) {
  const type = typeOf(row);
  const binary = (file: FileJson) => `${at ? `${at.base}/` : ''}Binary/${file.id}`;
  return {
    resourceType: 'DocumentReference',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [{ use: 'usual', system: DOCUMENT_ID_SYSTEM, value: row.id }],
    status: 'current',
    // US Core's binding is required (LOINC's document codes, or NullFlavor's UNK): Cairn knows no
    // LOINC code of a formation's type, so UNK, and the type itself as a further coding.
    type: { coding: [UNKNOWN_TYPE, { system: DOCUMENT_TYPE_SYSTEM, code: type }], text: type },
    category: [{ coding: [PATIENT_DOCUMENT] }],
    subject: reference('Patient', row.patient_id),
    date: row.created_at.toISOString(),
    // Who uploaded it: a user is a Practitioner; an API client is named only.
    author: row.author_id
      ? [reference('Practitioner', row.author_id)]
      : row.created_by_name
        ? [{ display: row.created_by_name }]
        : [],
    // US Core needs an attachment: a summary whose files are yet to come says so.
    content:
      row.files.length > 0
        ? row.files.map((file) => ({ attachment: attachmentOf(file, binary(file)) }))
        : [{ attachment: absent('unknown') }],
  };
}

/** The summary's type: `code` or `system|code` of Cairn's document types; NullFlavor's UNK every summary. */
const typeParam: FhirParam = {
  type: 'token',
  where: (token) => {
    const { system, code } = tokenOf(token);
    if (system === UNKNOWN_TYPE.system) return code === UNKNOWN_TYPE.code ? sql<SqlBool>`true` : nothing;
    if (system !== undefined && system !== DOCUMENT_TYPE_SYSTEM) return nothing;
    return sql<SqlBool>`r.values ->> 'type' = ${code}`;
  },
};

/**
 * DocumentReference: an instance's document summaries (their partial index's predicate repeated
 * as a literal, so it serves the id order; a patient's by the CDT patient index), searched by
 * patient, category, type, date and status as US Core asks.
 */
export const fhirDocumentReference: FhirResource = {
  type: 'DocumentReference',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-documentreference',
  permission: documentFiles.DOCUMENT_SUMMARY.readPermission,
  table: 'cdt_records',
  instanceScoped: true,
  where: [sql<SqlBool>`r.cdt_name = ${sql.lit(DOCUMENT_SUMMARY)}`],
  patient: { column: 'patient_id' },
  logAs: 'DOCUMENT_SUMMARY',
  auditEntity: 'CDT_RECORD',
  // As GET /patients/{pid}/document-summary/{id} answers.
  notFound: 'DT_RECORD_NOT_FOUND',
  columns: (tenantId) => [
    filesColumn(SUMMARY_FILES, 'files')(tenantId),
    practitionerColumn(['created_by'], 'author_id')(tenantId),
  ],
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    category: fixedToken('category', PATIENT_DOCUMENT),
    type: typeParam,
    date: dateParam('date', 'created_at', 'instant'),
    status: fixedToken('status', { system: 'http://hl7.org/fhir/document-reference-status', code: 'current' }, STATUSES),
  },
  linkedReads: ['Binary'],
  toFhir: (row: DocumentRow, at?: FhirAt) => compact(documentReferenceOf(row, at)),
};
