import { settingsOf } from '../../config.ts';
import type { Context } from '../../http/context.ts';
import { ProviderError } from '../../providers/channels.ts';
import { paymentsSlot } from '../../providers/payments/payments.ts';
import { requirePatient, withPatient } from '../../records/patient-scope.ts';
import { ApiError } from '../../wire/errors.ts';
import { paymentSettings } from './settings.ts';

/** 403 PAYMENTS_NOT_LICENSED unless the operator licensed this tenant (000: a tenant licence for the integration). */
export function requireLicence(ctx: Context): void {
  if (!settingsOf(ctx.services.config, paymentSettings).licensed(ctx.tenant.name)) {
    throw new ApiError('PAYMENTS_NOT_LICENSED', { tenantName: ctx.tenant.name });
  }
}

/** A provider's refusal as the caller hears it: its message in a 400, or a 503 when it did not answer. */
export function providerRefusal(error: unknown, code: 'PAYMENT_METHOD_REJECTED' | 'PAYMENT_DECLINED'): never {
  if (error instanceof ProviderError && error.permanent) {
    throw new ApiError(code, { providerCode: error.code }, error.message);
  }
  if (error instanceof ProviderError) throw new ApiError('PAYMENT_PROVIDER_UNAVAILABLE', { providerCode: error.code });
  throw error;
}

/** The patient's customer and saved method at the instance's payments driver, if any. */
export async function savedMethodOf(ctx: Context, patientId: string) {
  const { driver } = await ctx.services.providers.for(paymentsSlot, ctx.scope);
  const row = await ctx.db
    .selectFrom('payment_customers')
    .selectAll()
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('patient_id', '=', patientId)
    .executeTakeFirst();
  return row?.driver === driver ? row : undefined;
}

/**
 * POST /payment/patients/{patientId}/payment-methods: the provider makes the patient's customer
 * the first time, attaches the method and sets it up for off-session charges; Cairn keeps the
 * customer and the method (one a patient: the newest). 400 PAYMENT_METHOD_REJECTED with the
 * provider's words when it refuses the id.
 */
export async function savePaymentMethod(ctx: Context, patientId: string, paymentMethodId: string) {
  requireLicence(ctx);
  await requirePatient(ctx, patientId);
  const chosen = await ctx.services.providers.for(paymentsSlot, ctx.scope);
  const existing = await savedMethodOf(ctx, patientId);
  const saved = await chosen.use
    .saveMethod(ctx.scope, { customerId: existing?.customer_id ?? null, patientId, paymentMethodId })
    .catch((error: unknown) => providerRefusal(error, 'PAYMENT_METHOD_REJECTED'));
  await withPatient(ctx, patientId, async (w) => {
    await w.db
      .insertInto('payment_customers')
      .values({
        tenant_id: ctx.scope.tenantId,
        instance_id: ctx.scope.instanceId,
        patient_id: patientId,
        driver: chosen.driver,
        customer_id: saved.customerId,
        payment_method_id: saved.paymentMethodId,
        ...w.created(),
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'patient_id']).doUpdateSet({
          driver: chosen.driver,
          customer_id: saved.customerId,
          payment_method_id: saved.paymentMethodId,
          ...w.updated(),
        }),
      )
      .execute();
    w.changed({
      action: 'PAYMENT_METHOD_SAVED',
      entityType: 'PATIENT',
      entityId: patientId,
      patientId,
      changedFields: ['paymentMethod'],
    });
  });
  return { paymentMethodId: saved.paymentMethodId };
}
