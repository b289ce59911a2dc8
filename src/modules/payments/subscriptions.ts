import { type Kysely, sql } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import type { Context } from '../../http/context.ts';
import { filteredPage, type Paging } from '../../http/pagination.ts';
import { paymentsSlot } from '../../providers/payments/payments.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import { ApiError } from '../../wire/errors.ts';
import { readInstant } from '../../wire/schemas.ts';
import { write } from '../../work/write.ts';
import { providerRefusal, requireLicence, savedMethodOf } from './operations.ts';
import { billingPeriods, type SubscriptionInputBody, type SubscriptionView } from './schemas.ts';

/**
 * Subscriptions (002 "Payments and invoices"): a patient's recurring charge, made at the payments
 * provider on the patient's saved method (AUTO_CHARGE) and kept here with the provider's status.
 */

type SubscriptionRead = Row<'subscriptions'> & { patient_name: string; care_member_name: string };

/** The subscription's patient's and care member's names, each read on its primary key (the tenant a parameter). */
const nameColumns = (tenantId: string) => [
  sql`(SELECT concat_ws(' ', p.first_name, p.last_name) FROM patients p WHERE p.tenant_id = ${tenantId} AND p.id = s.patient_id) AS patient_name`,
  sql`(SELECT coalesce(nullif(concat_ws(' ', u.first_name, u.last_name), ''), u.username) FROM users u
    WHERE u.tenant_id = ${tenantId} AND u.id = s.care_member_id) AS care_member_name`,
];

function subscriptionsOf(db: Kysely<DB>, scope: Scope) {
  return db
    .selectFrom('subscriptions as s')
    .where('s.tenant_id', '=', scope.tenantId)
    .where('s.instance_id', '=', scope.instanceId);
}

function subscriptionView(row: SubscriptionRead): SubscriptionView {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    pauseCollection: row.resumes_at ? { resumesAt: row.resumes_at } : null,
    billingPeriod: row.billing_period,
    careMember: { id: row.care_member_id, name: row.care_member_name ?? '' },
    patient: { id: row.patient_id, name: row.patient_name ?? '' },
    paymentTypeInfo: { paymentType: row.payment_type },
    price: { amount: Number(row.amount), currency: row.currency },
    startDate: row.start_date,
    numberOfCycles: row.number_of_cycles,
    canceledAt: row.canceled_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function requireSubscription(ctx: Context, id: string, db = ctx.db): Promise<SubscriptionRead> {
  const row = (await subscriptionsOf(db, ctx.scope)
    .selectAll('s')
    .select(nameColumns(ctx.scope.tenantId) as never[])
    .where('s.id', '=', id)
    .executeTakeFirst()) as SubscriptionRead | undefined;
  if (!row) throw new ApiError('SUBSCRIPTION_NOT_FOUND', { subscriptionId: id });
  return row;
}

/** POST /payment/subscriptions: made at the provider on the patient's saved method, then stored with its status. */
export async function createSubscription(ctx: Context, body: SubscriptionInputBody): Promise<SubscriptionView> {
  requireLicence(ctx);
  const patient = await requirePatient(ctx, body.patient.id);
  const member = await ctx.db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('id', '=', body.careMember.id)
    // A deleted user is no care member, as in every other user check (tenancy/users.ts).
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!member) throw new ApiError('USER_NOT_FOUND', { userId: body.careMember.id });
  const saved = await savedMethodOf(ctx, patient.id);
  if (!saved) throw new ApiError('PAYMENT_METHOD_MISSING', { patientId: patient.id });
  const chosen = await ctx.services.providers.for(paymentsSlot, ctx.scope);
  const id = uuidv7();
  const startDate = readInstant(body.startDate);
  const made = await chosen.use
    .createSubscription(ctx.scope, {
      customerId: saved.customer_id,
      paymentMethodId: saved.payment_method_id,
      name: body.name,
      amount: body.price.amount,
      currency: body.price.currency.toLowerCase(),
      interval: billingPeriods[body.billingPeriod],
      startDate,
      cycles: body.numberOfCycles,
      key: id,
    })
    .catch((error: unknown) => providerRefusal(error, 'PAYMENT_DECLINED'));
  await write(ctx, async (w) => {
    await w.db
      .insertInto('subscriptions')
      .values({
        tenant_id: ctx.scope.tenantId,
        instance_id: ctx.scope.instanceId,
        id,
        name: body.name,
        status: made.status,
        billing_period: body.billingPeriod,
        care_member_id: member.id,
        patient_id: patient.id,
        payment_type: body.paymentTypeInfo.paymentType,
        amount: body.price.amount,
        currency: body.price.currency.toLowerCase(),
        start_date: startDate,
        number_of_cycles: body.numberOfCycles,
        driver: chosen.driver,
        external_id: made.externalId,
        resumes_at: null,
        canceled_at: null,
        ...w.created(),
      })
      .execute();
    w.changed({ action: 'SUBSCRIPTION_CREATED', entityType: 'SUBSCRIPTION', entityId: id, patientId: patient.id });
  });
  return subscriptionView(await requireSubscription(ctx, id));
}

export async function getSubscription(ctx: Context, id: string): Promise<SubscriptionView> {
  return subscriptionView(await requireSubscription(ctx, id));
}

/** GET /payment/subscriptions: newest first; `patientId` and `status` filter. */
export async function subscriptionPage(ctx: Context, filters: { patientId?: string; status?: string }, paging: Paging) {
  let base = subscriptionsOf(ctx.db, ctx.scope);
  if (filters.patientId) base = base.where('s.patient_id', '=', filters.patientId);
  if (filters.status) base = base.where('s.status', '=', filters.status);
  const list = {
    base: base as never,
    table: 'subscriptions',
    alias: 's',
    tenantId: ctx.scope.tenantId,
    searched: false,
    extra: nameColumns(ctx.scope.tenantId),
  };
  const order = { keys: [], fallback: [{ column: 's.created_at', direction: 'desc' as const }], tieBreaker: 's.id' };
  const { rows, total } = await filteredPage<SubscriptionRead>(ctx.db as Kysely<never>, list, order, paging);
  return { content: rows.map(subscriptionView), total };
}

/** DELETE /payment/subscriptions/{id}: canceled at the provider at once; answers it CANCELED. Canceling again changes nothing. */
export async function cancelSubscription(ctx: Context, id: string): Promise<SubscriptionView> {
  requireLicence(ctx);
  const row = await requireSubscription(ctx, id);
  if (row.status === 'CANCELED') return subscriptionView(row);
  const { use: driver } = await ctx.services.providers.for(paymentsSlot, ctx.scope);
  const state = await driver
    .cancelSubscription(ctx.scope, row.external_id)
    .catch((error: unknown) => providerRefusal(error, 'PAYMENT_DECLINED'));
  await write(ctx, async (w) => {
    await w.db
      .updateTable('subscriptions')
      .set({ status: state.status, canceled_at: w.now, ...w.updated() })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', id)
      .execute();
    w.changed({
      action: 'SUBSCRIPTION_STATUS_CHANGED',
      entityType: 'SUBSCRIPTION',
      entityId: id,
      patientId: row.patient_id,
      changedFields: ['status'],
      about: { status: state.status },
    });
  });
  return subscriptionView(await requireSubscription(ctx, id));
}
