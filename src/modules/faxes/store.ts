import { type Kysely, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { likeContains } from '../../db/sql.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import { readInstant } from '../../wire/schemas.ts';
import type { FaxListFilters } from './schemas.ts';

/** Faxes' SQL: every query names the tenant and the instance; each filter has its index. */

export type FaxRow = Row<'faxes'>;

export const sortableFaxFields: Record<string, string> = { createdAt: 'f.created_at' };

export function findFax(db: Kysely<DB>, scope: Scope, id: string, forUpdate = false) {
  let query = db
    .selectFrom('faxes')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .where('instance_id', '=', scope.instanceId);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export function findFaxByExternalId(db: Kysely<DB>, scope: Scope, externalId: string) {
  return db
    .selectFrom('faxes')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('external_id', '=', externalId)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}

/** A number as the list's filters take it (digits, the plus optional) in the E.164 it is stored in. */
const e164 = (digits: string) => `+${digits.replace(/^\+/, '')}`;

export function listFaxes(
  db: Kysely<DB>,
  scope: Scope,
  filters: FaxListFilters,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: FaxRow[]; total: number }> {
  let base = db.selectFrom('faxes as f').where('f.tenant_id', '=', scope.tenantId).where('f.instance_id', '=', scope.instanceId);
  if (filters.statuses?.length) base = base.where('f.status', 'in', filters.statuses);
  if (filters.direction) base = base.where('f.direction', '=', filters.direction);
  if (filters.fromNumber) base = base.where('f.from_number', '=', e164(filters.fromNumber));
  if (filters.toNumber) base = base.where('f.to_number', '=', e164(filters.toNumber));
  if (filters.patientId) base = base.where('f.patient_id', '=', filters.patientId);
  if (filters.reviewed !== undefined) base = base.where('f.reviewed', '=', filters.reviewed);
  if (filters.sentBy) base = base.where('f.sent_by', '=', filters.sentBy);
  if (filters.subject) base = base.where(sql`lower(f.subject)`, 'like', likeContains(filters.subject.toLowerCase()));
  if (filters.sentByName) base = base.where(sql`lower(f.sent_by_name)`, 'like', likeContains(filters.sentByName.toLowerCase()));
  if (filters.createdAtAfter) base = base.where('f.created_at', '>=', readInstant(filters.createdAtAfter));
  if (filters.createdAtBefore) base = base.where('f.created_at', '<', readInstant(filters.createdAtBefore));
  if (filters.receivedAtAfter) base = base.where('f.received_at', '>=', readInstant(filters.receivedAtAfter));
  if (filters.receivedAtBefore) base = base.where('f.received_at', '<', readInstant(filters.receivedAtBefore));
  const searched = Boolean(filters.subject || filters.sentByName);
  const list = { base: base as never, table: 'faxes', alias: 'f', tenantId: scope.tenantId, searched };
  const order = { keys: sort, fallback: [{ column: 'f.created_at', direction: 'desc' as const }], tieBreaker: 'f.id' };
  return filteredPage<FaxRow>(db as Kysely<never>, list, order, paging);
}

/**
 * A deleted patient's faxes stay, unlinked (the area's `patientData`): a fax is the practice's
 * record of what was sent or received. Done by the delete, not by the key (Citus refuses a key
 * that nulls part of itself; migration 0025).
 */
export async function unlinkPatientFaxes(db: Kysely<DB>, scope: Pick<Scope, 'tenantId'>, patientId: string): Promise<void> {
  await db
    .updateTable('faxes')
    .set({ patient_id: null })
    .where('tenant_id', '=', scope.tenantId)
    .where('patient_id', '=', patientId)
    .execute();
}
