import type { Context } from '../../http/context.ts';
import { type Paging, parseSort } from '../../http/pagination.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import { ApiError } from '../../wire/errors.ts';
import { billableEncounter } from '../encounters/index.ts';
import type { InvoiceFilters, InvoiceStatus, InvoiceView } from './schemas.ts';
import { findInvoice, type InvoiceRow, listInvoices, sortableInvoiceFields } from './store.ts';
import type { InvoiceItemJson } from './tables.ts';

/** Invoices as 002 shows them: amounts in cents, the items as made from the encounter's services. */
export function invoiceView(row: InvoiceRow): InvoiceView {
  const items = (typeof row.items === 'string' ? JSON.parse(row.items) : row.items) as InvoiceItemJson[];
  return {
    id: row.id,
    customInvoiceId: row.custom_invoice_id,
    status: row.status as InvoiceStatus,
    statusMessage: row.status_message,
    paymentTypeInfo: { paymentType: row.payment_type },
    billingType: row.billing_type as InvoiceView['billingType'],
    currency: row.currency,
    invoiceDate: row.invoice_date,
    dueDate: row.due_date,
    invoiceItems: items,
    careMember: row.care_member_id ? { id: row.care_member_id, name: row.care_member_name ?? '' } : null,
    patient: { id: row.patient_id, name: row.patient_name },
    amount: Number(row.amount),
    amountPaid: Number(row.amount_paid),
    relatedEncounters: row.related_encounters,
    paidAt: row.paid_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function requireInvoice(ctx: Context, id: string, db = ctx.db, forUpdate = false): Promise<InvoiceRow> {
  const row = await findInvoice(db, ctx.scope, id, forUpdate);
  if (!row) throw new ApiError('INVOICE_NOT_FOUND', { invoiceId: id });
  return row;
}

/** A page of invoices: the instance's, or a patient's (404 for an unknown patient), or one encounter's. */
export async function invoicePage(
  ctx: Context,
  filters: InvoiceFilters & { encounterId?: string },
  paging: Paging,
  sort: string | string[] | undefined,
) {
  const keys = parseSort(sort, sortableInvoiceFields);
  if (filters.patientId) await requirePatient(ctx, filters.patientId);
  if (filters.encounterId) {
    // An encounter of another patient (or none) is as missing as production says for a CDT record.
    const encounter = await billableEncounter(ctx, filters.encounterId);
    if (encounter?.patientId !== filters.patientId) {
      const details = { patientId: filters.patientId, cdtRecordId: filters.encounterId, cdtName: '__encounter__' };
      throw new ApiError('DT_RECORD_NOT_FOUND', details);
    }
  }
  const { rows, total } = await listInvoices(ctx.db, ctx.scope, filters, paging, keys);
  return { content: rows.map(invoiceView), total, sorted: keys.length > 0 };
}
