import type { Context } from '../../http/context.ts';
import { ProviderError } from '../../providers/channels.ts';
import { paymentsSlot } from '../../providers/payments/payments.ts';
import { ApiError } from '../../wire/errors.ts';
import { write } from '../../work/write.ts';
import { providerRefusal, requireLicence, savedMethodOf } from '../payments/index.ts';
import { invoiceView, requireInvoice } from './invoices.ts';
import type { InvoiceView } from './schemas.ts';

/**
 * POST /invoice/invoices/{id}/pay: charges the patient's saved method off-session for what is
 * due, through the instance's payments provider. PAID with the charge's id, or PAYMENT_FAILED
 * with the provider's words (it may be paid again, with another method); both answer the invoice.
 * The charge's key is the invoice, its method and its last change: a retry of the same request is
 * the same charge at the provider, never a second one.
 */
export async function payInvoice(ctx: Context, invoiceId: string): Promise<InvoiceView> {
  requireLicence(ctx);
  const invoice = await requireInvoice(ctx, invoiceId);
  if (invoice.status === 'PAID') throw new ApiError('INVOICE_PAID', { invoiceId });
  const saved = await savedMethodOf(ctx, invoice.patient_id);
  if (!saved) throw new ApiError('PAYMENT_METHOD_MISSING', { patientId: invoice.patient_id });
  const { use: driver } = await ctx.services.providers.for(paymentsSlot, ctx.scope);
  const due = Number(invoice.amount) - Number(invoice.amount_paid);
  const outcome = await driver
    .charge(ctx.scope, {
      customerId: saved.customer_id,
      paymentMethodId: saved.payment_method_id,
      amount: due,
      currency: invoice.currency,
      description: invoice.custom_invoice_id,
      key: `${invoice.id}:${saved.payment_method_id}:${new Date(invoice.updated_at).getTime()}`,
    })
    .then(
      (charge) => ({ paid: true as const, charge }),
      (error: unknown) => {
        if (error instanceof ProviderError && error.permanent) return { paid: false as const, message: error.message };
        return providerRefusal(error, 'PAYMENT_DECLINED');
      },
    );
  const row = await write(ctx, async (w) => {
    const current = await requireInvoice(ctx, invoiceId, w.db, true);
    // Paid meanwhile by another request with the same charge: it stands.
    if (current.status === 'PAID') return current;
    const changes = outcome.paid
      ? {
          status: 'PAID',
          status_message: null,
          amount_paid: current.amount,
          paid_at: w.now,
          external_id: outcome.charge.externalId,
        }
      : { status: 'PAYMENT_FAILED', status_message: outcome.message };
    const updated = await w.db
      .updateTable('invoices')
      .set({ ...changes, ...w.updated() })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', invoiceId)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({
      action: 'INVOICE_STATUS_CHANGED',
      entityType: 'INVOICE',
      entityId: invoiceId,
      patientId: current.patient_id,
      changedFields: ['status'],
      about: { status: changes.status },
    });
    return updated;
  });
  return invoiceView(row);
}
