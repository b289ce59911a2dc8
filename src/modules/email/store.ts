import { type Kysely, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { PatientScope, Scope } from '../../db/scope.ts';
import { likeContains } from '../../db/sql.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import type { RecipientScope } from '../../records/recipients.ts';
import { readInstant } from '../../wire/schemas.ts';
import type { EmailListFilters } from './schemas.ts';

/** Email drafts' and emails' SQL: every query names the tenant and the instance, and a list or read its patient. */

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

export type EmailRow = Row<'emails'>;

/** Sort keys, each served by an emails index (tenant, patient, key, id). */
export const sortableEmailFields: Record<string, string> = {
  date: 'e.date',
  createdAt: 'e.created_at',
  updatedAt: 'e.updated_at',
};

function ofRecipient(db: Kysely<DB>, where: RecipientScope) {
  const base = db
    .selectFrom('emails as e')
    .where('e.tenant_id', '=', where.tenantId)
    .where('e.patient_id', '=', where.patientId)
    .where('e.instance_id', '=', where.instanceId);
  // A contact's emails are read through the contact's id only, and a patient's through the patient's.
  return where.contactId ? base.where('e.contact_id', '=', where.contactId) : base.where('e.contact_id', 'is', null);
}

export function findEmail(db: Kysely<DB>, where: RecipientScope, id: string) {
  return ofRecipient(db, where).selectAll('e').where('e.id', '=', id).executeTakeFirst();
}

/** A page of a patient's (or one contact's) emails and the total, in one statement; by date, newest first, unless sorted. */
export function listEmails(
  db: Kysely<DB>,
  where: RecipientScope,
  filters: EmailListFilters,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: EmailRow[]; total: number }> {
  let base = ofRecipient(db, where);
  const lower = (column: string) => sql<string>`lower(${sql.ref(column)})`;
  if (filters.status?.length) base = base.where('e.status', 'in', filters.status);
  if (filters.email) {
    const address = filters.email.toLowerCase();
    base = base.where((eb) => eb.or([eb(lower('e.from_address'), '=', address), eb(lower('e.to_address'), '=', address)]));
  }
  if (filters.from) base = base.where(lower('e.from_address'), '=', filters.from.toLowerCase());
  if (filters.to) base = base.where(lower('e.to_address'), '=', filters.to.toLowerCase());
  if (filters.starred !== undefined) base = base.where('e.starred', '=', filters.starred);
  if (filters.direction) base = base.where('e.direction', '=', filters.direction);
  if (filters.senderId) base = base.where('e.sender', '=', filters.senderId);
  if (filters.receiverId) base = base.where('e.receiver', '=', filters.receiverId);
  if (filters.senderName) base = base.where(lower('e.sender_name'), 'like', likeContains(filters.senderName.toLowerCase()));
  if (filters.receiverName) base = base.where(lower('e.receiver_name'), 'like', likeContains(filters.receiverName.toLowerCase()));
  if (filters.dateAfter) base = base.where('e.date', '>=', readInstant(filters.dateAfter));
  if (filters.dateBefore) base = base.where('e.date', '<', readInstant(filters.dateBefore));
  const search = filters.search ?? filters.query;
  if (search) {
    // The expression of emails_text_idx, so the trigram index serves it.
    const text = sql<string>`lower(coalesce(e.subject, '') || ' ' || coalesce(e.body, ''))`;
    base = base.where(text, 'like', likeContains(search.toLowerCase()));
  }
  const list = { base: base as never, table: 'emails', alias: 'e', tenantId: where.tenantId, searched: Boolean(search) };
  const order = { keys: sort, fallback: [{ column: 'e.date', direction: 'desc' as const }], tieBreaker: 'e.id' };
  return filteredPage<EmailRow>(db as Kysely<never>, list, order, paging);
}

/** The email a provider reports on, by the id it gave the message. */
export function findEmailByExternalId(db: Kysely<DB>, scope: Scope, externalId: string) {
  return db
    .selectFrom('emails')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('external_id', '=', externalId)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}

/** An email by id in an instance, whoever it is about (background work). */
export function findEmailById(db: Kysely<DB>, scope: Scope, id: string) {
  return db
    .selectFrom('emails')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}
