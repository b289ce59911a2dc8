import { Type } from 'typebox';
import type { Scope } from '../../db/scope.ts';
import type { Api, AreaOptions } from '../../http/plugin.ts';
import { acceptRawJson, checkedCallback } from '../../http/provider-callbacks.ts';
import type { Services } from '../../http/services.ts';
import type { SubscriptionState } from '../../providers/payments/driver.ts';
import { paymentsSlot } from '../../providers/payments/payments.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { instanceJobContext } from '../../work/job-context.ts';
import { write } from '../../work/write.ts';

const VendorParams = Type.Object({ ...InstanceParams.properties, driver: Type.String({ maxLength: 40 }) });
/** A subscription here does not come back from these (a late report of an earlier state is ignored). */
const final = new Set(['CANCELED', 'COMPLETED', 'RELEASED', 'INCOMPLETE_EXPIRED']);

/** A provider's word on a subscription: its status moves, unless it has ended. False when none has that id. */
export async function reportSubscriptionStatus(services: Services, scope: Scope, state: SubscriptionState): Promise<boolean> {
  const row = await services.db
    .selectFrom('subscriptions')
    .select(['id', 'status', 'patient_id'])
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('external_id', '=', state.externalId)
    .executeTakeFirst();
  if (!row) return false;
  if (row.status === state.status || final.has(row.status)) return true;
  const ctx = await instanceJobContext(services, scope, 'SYSTEM:payments');
  if (!ctx) return false;
  await write(ctx, async (w) => {
    await w.db
      .updateTable('subscriptions')
      .set({ status: state.status, ...w.updated() })
      .where('tenant_id', '=', scope.tenantId)
      .where('id', '=', row.id)
      .execute();
    w.changed({
      action: 'SUBSCRIPTION_STATUS_CHANGED',
      entityType: 'SUBSCRIPTION',
      entityId: row.id,
      patientId: row.patient_id,
      changedFields: ['status'],
      about: { status: state.status },
    });
  });
  return true;
}

/** The payments provider's webhook, in its own plugin: Stripe signs the body's exact bytes, so JSON is read as text here. */
export async function paymentCallbackRoutes(app: Api, { services }: AreaOptions): Promise<void> {
  acceptRawJson(app);
  app.post(
    '/:tenantName/:instanceName/providers/payments/:driver/events',
    {
      config: { access: { public: true } },
      schema: {
        tags: ['Payments'],
        summary: "The payments provider's webhook: subscriptions' status changes",
        description:
          "Give Stripe `<CAIRN_PUBLIC_URL>/{tenantName}/{instanceName}/providers/payments/stripe/events` as a webhook endpoint for `subscription_schedule.*` events. Each moves its subscription's status (NOT_STARTED, ACTIVE, CANCELED, COMPLETED, RELEASED), never out of an ended one; other events are acknowledged and ignored. Signed by Stripe (Stripe-Signature over the exact body, checked with the SDK against the endpoint's secret, 5 minutes' tolerance); 403 PROVIDER_SIGNATURE_INVALID, nothing changed, when the signature is missing, wrong or stale, or the instance's payments driver is another.",
        consumes: ['application/json'],
        params: VendorParams,
        body: Type.String({ description: 'The provider’s JSON event, as sent' }),
        response: { 200: Type.Object({}), 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
      },
    },
    async (request) => {
      const { scope, driver, body } = await checkedCallback(services, paymentsSlot, request, request.params);
      const state = driver.callbacks?.read(body) ?? null;
      if (state) await reportSubscriptionStatus(services, scope, state);
      return {};
    },
  );
}
