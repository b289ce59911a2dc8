import { sql } from 'kysely';
import type { Context } from '../../http/context.ts';
import type { ExportSource } from '../../http/export.ts';
import { AssessmentRecord } from './schemas.ts';
import type { AssessmentRecordRow } from './store.ts';
import { assessmentRecordView } from './views.ts';

/**
 * Assessment records in the bulk export. 002 names two resources of the one table: ASSESSMENT,
 * the staff's records, and PFA, the patient-facing ones. Each `where` repeats its partial index's
 * predicate (0020_export), so a page reads that index.
 */

/** Each as GET .../assessment-records/{id} shows it: local times in the caller's zone (UTC for API clients). */
const view = (ctx: Context, rows: AssessmentRecordRow[]) => rows.map((row) => assessmentRecordView(row, ctx.timezone));

export const assessmentExport: ExportSource = {
  permission: 'ASSESSMENT_EXPORT',
  summary: 'assessment records',
  item: AssessmentRecord,
  table: 'assessment_records',
  patientsOf: { column: 'patient_id' },
  where: () => [sql`NOT r.pfa`],
  view,
};

export const pfaExport: ExportSource = {
  permission: 'PFA_EXPORT',
  summary: 'patient-facing assessment records (PFA)',
  item: AssessmentRecord,
  table: 'assessment_records',
  patientsOf: { column: 'patient_id' },
  where: () => [sql`r.pfa`],
  view,
};
