import type { Kysely } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import type { CdtRecordRow } from '../../records/store.ts';
import { ENCOUNTER } from './types.ts';

/** The encounters area's SQL beyond the records kernel: the parts of encounters (by their source) and comments. */

export type CommentRow = Row<'encounter_comments'>;

/** The dispositions and assessment links of these encounters (records whose source they are): one statement. */
export function partsOf(
  db: Kysely<DB>,
  scope: Scope,
  encounterIds: string[],
  cdtNames: string[],
  options: { forUpdate?: boolean } = {},
): Promise<CdtRecordRow[]> {
  if (encounterIds.length === 0) return Promise.resolve([]);
  let query = db
    .selectFrom('cdt_records')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('source_id', 'in', encounterIds)
    .where('cdt_name', 'in', cdtNames)
    .where('instance_id', '=', scope.instanceId)
    .where('source_name', '=', ENCOUNTER)
    .orderBy('created_at')
    .orderBy('id');
  if (options.forUpdate) query = query.forUpdate();
  return query.execute();
}

export function commentsOf(db: Kysely<DB>, scope: Scope, encounterIds: string[]): Promise<CommentRow[]> {
  if (encounterIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('encounter_comments')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('encounter_id', 'in', encounterIds)
    .where('instance_id', '=', scope.instanceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findComment(db: Kysely<DB>, scope: Scope, encounterId: string, id: string, forUpdate = false) {
  let query = db
    .selectFrom('encounter_comments')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .where('encounter_id', '=', encounterId)
    .where('instance_id', '=', scope.instanceId);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** An assessment record of the patient, for a link to name. */
export function findAssessmentRecord(db: Kysely<DB>, scope: Scope, patientId: string, id: string) {
  return db
    .selectFrom('assessment_records')
    .select(['id', 'assessment_name'])
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('patient_id', '=', patientId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * An encounter of the patient that another record names, held FOR KEY SHARE until the write ends:
 * the encounter cannot be deleted under the record naming it, and its own changes go on.
 */
export function lockEncounterOf(db: Kysely<DB>, scope: Scope, patientId: string, id: string) {
  return db
    .selectFrom('cdt_records')
    .select('id')
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('patient_id', '=', patientId)
    .where('cdt_name', '=', ENCOUNTER)
    .where('id', '=', id)
    .forKeyShare()
    .executeTakeFirst();
}
