import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import {
  compact,
  dateParam,
  type FhirAt,
  type FhirParam,
  type FhirResource,
  invalidParam,
  nothing,
  practitionerColumn,
  reference,
  referenceParam,
  tokenOf,
} from '../../http/fhir.ts';

/**
 * An assessment record as a FHIR R4 QuestionnaireResponse, profiled as US Core 6.1.0
 * QuestionnaireResponse: its answers as items, in the order of its questions. Each field's mapping is in
 * docs/fhir.md; what has no home (scoring, folder, expiry) is said there.
 */

export const ASSESSMENT_ID_SYSTEM = 'https://cairn.health/fhir/sid/assessment-record-id';
const DISPLAY = 'http://hl7.org/fhir/StructureDefinition/display';

/** QuestionnaireResponseStatus (a required binding): the codes a status search takes. */
const STATUSES = ['in-progress', 'completed', 'amended', 'entered-in-error', 'stopped'];

type AssessmentRow = Row<'assessment_records'> & { author_id: string | null };

/** A completed record completed again since is `amended`: FHIR's word for answers changed after completion. */
function statusOf(row: AssessmentRow): string {
  if (row.status !== 'COMPLETED') return 'in-progress';
  return row.recompleted_at ? 'amended' : 'completed';
}

/** Each status code as a condition on the record's status (served by its status index). */
const statusParam: FhirParam = {
  type: 'token',
  where: (token) => {
    const { code } = tokenOf(token);
    if (code === 'in-progress') return sql<SqlBool>`r.status <> 'COMPLETED'`;
    if (code === 'completed') return sql<SqlBool>`(r.status = 'COMPLETED' AND r.recompleted_at IS NULL)`;
    if (code === 'amended') return sql<SqlBool>`(r.status = 'COMPLETED' AND r.recompleted_at IS NOT NULL)`;
    if (STATUSES.includes(code)) return nothing;
    throw invalidParam('status', `must be one of ${STATUSES.join(', ')}`);
  },
};

/** The assessment type a record answers, as a canonical at the instance's FHIR base (Cairn serves no Questionnaire yet). */
const questionnaireOf = (name: string, at: FhirAt | undefined) =>
  `${at ? `${at.base}/` : ''}Questionnaire/${encodeURIComponent(name)}`;

/** `questionnaire=`: a canonical ending in `Questionnaire/{name}` (any version), or the name alone. */
const questionnaireParam: FhirParam = {
  type: 'reference',
  where: (value) => {
    const canonical = value.split('|')[0]!;
    const name = canonical.slice(canonical.lastIndexOf('/') + 1);
    try {
      return sql<SqlBool>`r.assessment_name = ${decodeURIComponent(name)}`;
    } catch {
      throw invalidParam('questionnaire', 'is not a canonical URL');
    }
  },
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const INT32 = 2 ** 31;

/**
 * An answer as FHIR's answer values, by what the JSON holds (the record keeps no field types): a
 * list (a multiple select) is one answer each; an object, which FHIR has no value for, is its JSON.
 */
function answersOf(value: unknown): Record<string, unknown>[] {
  if (value === null || value === undefined || value === '') return [];
  if (Array.isArray(value)) return value.flatMap(answersOf);
  if (typeof value === 'boolean') return [{ valueBoolean: value }];
  if (typeof value === 'number') {
    return [Number.isInteger(value) && Math.abs(value) < INT32 ? { valueInteger: value } : { valueDecimal: value }];
  }
  if (typeof value === 'string') {
    if (DATE.test(value)) return [{ valueDate: value }];
    if (DATE_TIME.test(value)) return [{ valueDateTime: value }];
    return [{ valueString: value }];
  }
  return [{ valueString: JSON.stringify(value) }];
}

/** The answered questions in the formation's order (then any answer no question names), each with its label. */
function itemsOf(row: AssessmentRow) {
  const answers = row.answers as Record<string, unknown>;
  const labels = new Map(row.questions as [string, string][]);
  const keys = [...labels.keys(), ...Object.keys(answers).filter((key) => !labels.has(key))];
  return keys
    .map((key) => ({ linkId: key, text: labels.get(key), answer: answersOf(answers[key]) }))
    .filter((item) => item.answer.length > 0);
}

function questionnaireResponseOf(row: AssessmentRow, at: FhirAt | undefined) {
  // Who recorded the answers last: who completed them again, who completed them, or who last wrote
  // them (the order of author_id's columns); a user is a Practitioner, an API client named only.
  const [, recorder] =
    [
      [row.recompleted_by, row.recompleted_by_name],
      [row.completed_by, row.completed_by_name],
      [row.updated_by, row.updated_by_name],
    ].find(([id]) => id) ?? [];
  return {
    resourceType: 'QuestionnaireResponse',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: { use: 'usual', system: ASSESSMENT_ID_SYSTEM, value: row.id },
    questionnaire: questionnaireOf(row.assessment_name, at),
    ...(row.assessment_title ? { _questionnaire: { extension: [{ url: DISPLAY, valueString: row.assessment_title }] } } : {}),
    status: statusOf(row),
    subject: reference('Patient', row.patient_id),
    encounter: reference('Encounter', row.encounter_id),
    authored: row.updated_at.toISOString(),
    author: row.author_id ? reference('Practitioner', row.author_id) : recorder ? { display: recorder } : undefined,
    item: itemsOf(row),
  };
}

/** QuestionnaireResponse: an instance's assessment records, searched by patient, status, authored and questionnaire. */
export const fhirQuestionnaireResponse: FhirResource = {
  type: 'QuestionnaireResponse',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-questionnaireresponse',
  permission: 'ASSESSMENT_READ',
  table: 'assessment_records',
  instanceScoped: true,
  patient: { column: 'patient_id' },
  logAs: 'ASSESSMENT_RECORD',
  auditEntity: 'ASSESSMENT',
  notFound: 'ASSESSMENT_RECORD_NOT_FOUND',
  columns: (tenantId) => [practitionerColumn(['recompleted_by', 'completed_by', 'updated_by'], 'author_id')(tenantId)],
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    status: statusParam,
    authored: dateParam('authored', 'updated_at', 'instant'),
    questionnaire: questionnaireParam,
  },
  toFhir: (row: AssessmentRow, at?: FhirAt) => compact(questionnaireResponseOf(row, at)),
};
