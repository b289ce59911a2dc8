import { type Kysely, type SqlBool, sql, type Updateable } from 'kysely';
import type { DB, NewRow, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import type { AssessmentRecordsTable } from './tables.ts';

/** The assessment record queries; each is scoped by tenant, instance and patient. */

export type AssessmentRecordRow = Row<'assessment_records'>;

/** Sort keys of the list, each served by an index on (tenant, patient, key, id). */
export const sortableAssessmentFields: Record<string, string> = {
  createdAt: 'a.created_at',
  updatedAt: 'a.updated_at',
  finalizedDate: 'a.finalized_date',
};

function scoped(db: Kysely<DB>, scope: Scope, patientId: string) {
  return db
    .selectFrom('assessment_records as a')
    .where('a.tenant_id', '=', scope.tenantId)
    .where('a.instance_id', '=', scope.instanceId)
    .where('a.patient_id', '=', patientId);
}

export async function findAssessmentRecord(
  db: Kysely<DB>,
  scope: Scope,
  patientId: string,
  id: string,
  { forUpdate = false } = {},
): Promise<AssessmentRecordRow | undefined> {
  const query = scoped(db, scope, patientId).selectAll('a').where('a.id', '=', id);
  return (forUpdate ? query.forUpdate() : query).executeTakeFirst();
}

/** One page of a patient's records and the total, in one statement; newest first unless sorted. */
export async function listAssessmentRecords(
  db: Kysely<DB>,
  scope: Scope,
  patientId: string,
  filter: { statuses?: string[] },
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: AssessmentRecordRow[]; total: number }> {
  let base = scoped(db, scope, patientId);
  // One array parameter, so the statement's text (and its prepared plan) fits any number of statuses.
  if (filter.statuses?.length) base = base.where(sql<SqlBool>`a.status = ANY(${sql.val(filter.statuses)}::text[])`);
  const list = { base: base as never, table: 'assessment_records', alias: 'a', tenantId: scope.tenantId, searched: false };
  const order = { keys: sort, fallback: [{ column: 'a.created_at', direction: 'desc' as const }], tieBreaker: 'a.id' };
  return filteredPage<AssessmentRecordRow>(db as Kysely<never>, list, order, paging);
}

export async function insertAssessmentRecord(db: Kysely<DB>, row: NewRow<'assessment_records'>): Promise<AssessmentRecordRow> {
  return db.insertInto('assessment_records').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Writes the changes and moves the version on by one. */
export async function updateAssessmentRecord(
  db: Kysely<DB>,
  row: AssessmentRecordRow,
  changes: Updateable<AssessmentRecordsTable>,
): Promise<AssessmentRecordRow> {
  return db
    .updateTable('assessment_records')
    .set({ ...changes, version: row.version + 1 })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAssessmentRecord(db: Kysely<DB>, row: AssessmentRecordRow): Promise<void> {
  await db.deleteFrom('assessment_records').where('tenant_id', '=', row.tenant_id).where('id', '=', row.id).execute();
}
