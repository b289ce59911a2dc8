import { type Kysely, sql } from 'kysely';
import type { DB, NewRow, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import { readInstant } from '../../wire/schemas.ts';
import type { InvoiceFilters } from './schemas.ts';

export type InvoiceRow = Row<'invoices'>;

/** Sort keys of the invoice lists, each on an index (newest invoice first by default). */
export const sortableInvoiceFields: Record<string, string> = {
  invoiceDate: 'i.invoice_date',
  dueDate: 'i.due_date',
  amount: 'i.amount',
  customInvoiceId: 'i.number',
  createdAt: 'i.invoice_date',
};

/**
 * The tenant's next invoice number. The row stays locked by this transaction until it commits or
 * rolls back, so concurrent invoices take turns: no number is skipped or given twice.
 */
export async function nextInvoiceNumber(db: Kysely<DB>, tenantId: string): Promise<number> {
  const row = await db
    .insertInto('invoice_numbers')
    .values({ tenant_id: tenantId, last: 1 })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ last: sql`invoice_numbers.last + 1` }))
    .returning('last')
    .executeTakeFirstOrThrow();
  return Number(row.last);
}

export function insertInvoice(db: Kysely<DB>, row: NewRow<'invoices'>): Promise<InvoiceRow> {
  return db.insertInto('invoices').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findInvoice(db: Kysely<DB>, scope: Scope, id: string, forUpdate = false): Promise<InvoiceRow | undefined> {
  let select = db
    .selectFrom('invoices')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id);
  if (forUpdate) select = select.forUpdate();
  return select.executeTakeFirst();
}

export function invoiceOfEncounter(db: Kysely<DB>, tenantId: string, encounterId: string): Promise<InvoiceRow | undefined> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('encounter_id', '=', encounterId)
    .executeTakeFirst();
}

/** A page of the instance's invoices (or a patient's, or an encounter's) with the filters of DECISIONS §8, and the total. */
export function listInvoices(
  db: Kysely<DB>,
  scope: Scope,
  filters: InvoiceFilters & { encounterId?: string },
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: InvoiceRow[]; total: number }> {
  let base = db
    .selectFrom('invoices as i')
    .where('i.tenant_id', '=', scope.tenantId)
    .where('i.instance_id', '=', scope.instanceId);
  if (filters.patientId) base = base.where('i.patient_id', '=', filters.patientId);
  if (filters.encounterId) base = base.where('i.encounter_id', '=', filters.encounterId);
  if (filters.status) base = base.where('i.status', '=', filters.status);
  if (filters.dueAfter) base = base.where('i.due_date', '>=', readInstant(filters.dueAfter));
  if (filters.dueBefore) base = base.where('i.due_date', '<', readInstant(filters.dueBefore));
  const list = { base: base as never, table: 'invoices', alias: 'i', tenantId: scope.tenantId, searched: false };
  const order = { keys: sort, fallback: [{ column: 'i.invoice_date', direction: 'desc' as const }], tieBreaker: 'i.id' };
  return filteredPage<InvoiceRow>(db as Kysely<never>, list, order, paging);
}
