import type { Kysely } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { PatientScope, Scope } from '../../db/scope.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';

/** Email drafts' SQL: every query names the tenant, the instance and the patient. */

export type DraftRow = Row<'email_drafts'>;

/** Sort keys, each served by an email_drafts index (tenant, patient, key, id). */
export const sortableDraftFields: Record<string, string> = { createdAt: 'd.created_at', updatedAt: 'd.updated_at' };

export function findDraft(db: Kysely<DB>, where: PatientScope, id: string, forUpdate = false) {
  let query = db
    .selectFrom('email_drafts as d')
    .selectAll('d')
    .where('d.tenant_id', '=', where.tenantId)
    .where('d.id', '=', id)
    .where('d.patient_id', '=', where.patientId)
    .where('d.instance_id', '=', where.instanceId);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** A page of a patient's (or one contact's) drafts and the total, in one statement; newest first unless sorted. */
export function listDrafts(
  db: Kysely<DB>,
  where: PatientScope & { contactId: string | null },
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: DraftRow[]; total: number }> {
  let base = db
    .selectFrom('email_drafts as d')
    .where('d.tenant_id', '=', where.tenantId)
    .where('d.patient_id', '=', where.patientId)
    .where('d.instance_id', '=', where.instanceId);
  base = where.contactId ? base.where('d.contact_id', '=', where.contactId) : base.where('d.contact_id', 'is', null);
  const list = { base: base as never, table: 'email_drafts', alias: 'd', tenantId: where.tenantId, searched: false };
  const order = { keys: sort, fallback: [{ column: 'd.created_at', direction: 'desc' as const }], tieBreaker: 'd.id' };
  return filteredPage<DraftRow>(db as Kysely<never>, list, order, paging);
}

/** A contact of a patient in the instance, by its id (a draft about it names it in the patient's place). */
export function findContactAnywhere(db: Kysely<DB>, scope: Scope, id: string) {
  return db
    .selectFrom('contacts')
    .select(['id', 'patient_id', 'name', 'email'])
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id)
    .executeTakeFirst();
}
