import type { Kysely } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import type { RecipientScope } from '../../records/recipients.ts';
import { readInstant } from '../../wire/schemas.ts';
import type { SmsListFilters } from './schemas.ts';

/** SMS' SQL: every query names the tenant and the instance, and a list or read its patient. */

export type SmsRow = Row<'sms_messages'>;

/** Sort keys, each served by an sms_messages index (tenant, patient, key, id). */
export const sortableSmsFields: Record<string, string> = { date: 's.date', createdAt: 's.created_at' };

function ofRecipient(db: Kysely<DB>, where: RecipientScope) {
  const base = db
    .selectFrom('sms_messages as s')
    .where('s.tenant_id', '=', where.tenantId)
    .where('s.patient_id', '=', where.patientId)
    .where('s.instance_id', '=', where.instanceId);
  return where.contactId ? base.where('s.contact_id', '=', where.contactId) : base.where('s.contact_id', 'is', null);
}

export function findSms(db: Kysely<DB>, where: RecipientScope, id: string) {
  return ofRecipient(db, where).selectAll('s').where('s.id', '=', id).executeTakeFirst();
}

/** A page of a patient's (or one contact's) messages and the total, in one statement; newest first unless sorted. */
export function listSms(
  db: Kysely<DB>,
  where: RecipientScope,
  filters: SmsListFilters,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: SmsRow[]; total: number }> {
  let base = ofRecipient(db, where);
  if (filters.status?.length) base = base.where('s.status', 'in', filters.status);
  if (filters.direction) base = base.where('s.direction', '=', filters.direction);
  if (filters.dateAfter) base = base.where('s.date', '>=', readInstant(filters.dateAfter));
  if (filters.dateBefore) base = base.where('s.date', '<', readInstant(filters.dateBefore));
  const list = { base: base as never, table: 'sms_messages', alias: 's', tenantId: where.tenantId, searched: false };
  const order = { keys: sort, fallback: [{ column: 's.date', direction: 'desc' as const }], tieBreaker: 's.id' };
  return filteredPage<SmsRow>(db as Kysely<never>, list, order, paging);
}

/** The message a provider reports on, by the id it gave it. */
export function findSmsByExternalId(db: Kysely<DB>, scope: Scope, externalId: string) {
  return db
    .selectFrom('sms_messages')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('external_id', '=', externalId)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}
