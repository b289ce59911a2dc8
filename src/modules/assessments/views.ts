import { jsonBody } from '../../records/json-body.ts';
import { localDateTime, localDateTimeOrNull } from '../../wire/local-time.ts';
import type { AssessmentRecordView, AssessmentStatus } from './schemas.ts';
import type { AssessmentRecordRow } from './store.ts';

/**
 * A row as the API shows it (PROD-SHAPES "Assessment record", its key order). The local times
 * are in `timeZone`, the caller's (ctx.timezone).
 */
export function assessmentRecordView(row: AssessmentRecordRow, timeZone: string): AssessmentRecordView {
  const questions = Object.fromEntries(row.questions as [string, string][]);
  return {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdByName: row.created_by_name,
    updatedByName: row.updated_by_name,
    finalizedDate: row.finalized_date,
    localFinalizedDate: localDateTimeOrNull(row.finalized_date, timeZone),
    localCreatedDate: localDateTime(row.created_at, timeZone),
    localUpdatedDate: localDateTime(row.updated_at, timeZone),
    assessmentName: row.assessment_name,
    assessmentTitle: row.assessment_title,
    assessmentCdtName: `_${row.assessment_name}`,
    version: row.version,
    completedBy: row.completed_by,
    completedByName: row.completed_by_name,
    completedVersion: row.completed_version,
    patientId: row.patient_id,
    status: row.status as AssessmentStatus,
    // prod: the system fields of the CDT the answers live in, then every question's answer.
    answers: jsonBody({ ...row, external_id: null }, Object.keys(questions), row.answers as Record<string, unknown>),
    scoring: row.scoring as AssessmentRecordView['scoring'],
    folderId: row.folder_id,
    expirationDate: row.expiration_date,
    questions,
    // Pre-populated values of readOnly fields are not resolved yet (docs/decisions.md).
    resolvedCdtValues: {},
    pfa: row.pfa,
    templateExists: row.template_exists,
    urlAliasId: null,
    encounterId: row.encounter_id,
    recompletedBy: row.recompleted_by,
    recompletedByName: row.recompleted_by_name,
    recompletedAt: row.recompleted_at,
  };
}
