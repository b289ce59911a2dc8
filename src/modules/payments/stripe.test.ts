import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startFakeStripe } from '../../test/fake-stripe.ts';
import { assertCode, createPatient, createTestTenant, startApp, type TestTenant } from '../../test/harness.ts';

/**
 * The Stripe payments driver end to end: methods, charges and subscription schedules through the
 * `stripe` SDK to a local fake of Stripe's API, and Stripe's signed webhooks moving subscriptions.
 */

const stripe = await startFakeStripe();
const publicUrl = 'https://cairn.example.org';
const app = await startApp(
  {},
  {
    env: {
      CAIRN_PAYMENTS_DRIVER: 'stripe',
      CAIRN_STRIPE_SECRET_KEY: stripe.secretKey,
      CAIRN_STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
      CAIRN_STRIPE_API_URL: stripe.url,
      CAIRN_PUBLIC_URL: publicUrl,
    },
  },
);

async function setup() {
  const t = await createTestTenant(app);
  const patient = (await createPatient(t, { firstName: 'Pat', lastName: 'Lee' })).id;
  const member = await t.api.post(`${t.admin}/users`, {
    username: 'coach',
    email: 'coach@example.org',
    roles: [{ permissionName: 'admin', instanceName: 'sandbox' }],
  });
  return { t, patient, member: member.body.id as string, methods: `${t.base}/payment/patients/${patient}/payment-methods` };
}

function webhook(t: TestTenant, payload: object, headers?: Record<string, string>) {
  const body = JSON.stringify(payload);
  return t.anonymous.request('POST', `${t.base}/providers/payments/stripe/events`, body, headers ?? stripe.signed(body));
}

describe('payments through Stripe', () => {
  test('a method: the customer made once, attached and set up off-session; a declined card is 400 with Stripe’s words', async () => {
    const { patient, methods, t } = await setup();
    assert.equal((await t.api.post(methods, { paymentMethodId: 'pm_card_visa' })).status, 200);
    assert.equal((await t.api.post(methods, { paymentMethodId: 'pm_card_mastercard' })).status, 200);
    const customers = stripe.received.filter((entry) => entry.path === '/v1/customers');
    assert.equal(customers.filter((entry) => entry.fields['metadata[cairnPatientId]'] === patient).length, 1);
    const intent = stripe.received.filter((entry) => entry.path === '/v1/setup_intents').at(-1);
    assert.equal(intent?.fields.usage, 'off_session');
    assert.equal(intent?.fields.payment_method, 'pm_card_mastercard');
    const declined = await t.api.post(methods, { paymentMethodId: 'pm_card_chargeDeclined' });
    assertCode(declined, 400, 'PAYMENT_METHOD_REJECTED');
    assert.equal(declined.body[0].message, 'Your card was declined.');
    assertCode(await t.api.post(methods, { paymentMethodId: 'nope' }), 400, 'PAYMENT_METHOD_REJECTED');
  });

  test('a subscription is a schedule at Stripe; its signed webhooks move it, never out of CANCELED; bad signatures are 403', async () => {
    const { t, patient, member, methods } = await setup();
    await t.api.post(methods, { paymentMethodId: 'pm_card_visa' });
    const made = await t.api.post(`${t.base}/payment/subscriptions`, {
      name: 'Coaching',
      billingPeriod: 'MONTHLY',
      careMember: { id: member },
      patient: { id: patient },
      paymentTypeInfo: { paymentType: 'AUTO_CHARGE' },
      price: { amount: 4900, currency: 'usd' },
      startDate: '2099-01-01T00:00:00Z',
      numberOfCycles: 12,
    });
    assert.equal(made.status, 200, made.text);
    assert.equal(made.body.status, 'NOT_STARTED');
    const schedule = stripe.received.filter((entry) => entry.path === '/v1/subscription_schedules').at(-1)!;
    assert.equal(schedule.fields['phases[0][items][0][price_data][unit_amount]'], '4900');
    assert.equal(schedule.fields['phases[0][duration][interval_count]'], '12');
    assert.equal(schedule.fields['default_settings[default_payment_method]'], 'pm_card_visa');
    const scheduleId = (
      await app.services.db
        .selectFrom('subscriptions')
        .select('external_id')
        .where('id', '=', made.body.id)
        .executeTakeFirstOrThrow()
    ).external_id;
    const event = (status: string) => ({
      id: `evt_${status}`,
      object: 'event',
      type: 'subscription_schedule.updated',
      data: { object: { id: scheduleId, object: 'subscription_schedule', status } },
    });
    const url = `${t.base}/payment/subscriptions/${made.body.id}`;

    assertCode(await webhook(t, event('active'), { 'content-type': 'application/json' }), 403, 'PROVIDER_SIGNATURE_INVALID');
    const body = JSON.stringify(event('active'));
    const altered = await t.anonymous.request(
      'POST',
      `${t.base}/providers/payments/stripe/events`,
      body.replace('active', 'canceled'),
      stripe.signed(body),
    );
    assertCode(altered, 403, 'PROVIDER_SIGNATURE_INVALID');
    const stale = stripe.signed(body, Math.floor(Date.now() / 1000) - 3600);
    assertCode(
      await t.anonymous.request('POST', `${t.base}/providers/payments/stripe/events`, body, stale),
      403,
      'PROVIDER_SIGNATURE_INVALID',
    );
    assert.equal((await t.api.get(url)).body.status, 'NOT_STARTED');

    assert.equal((await webhook(t, event('active'))).status, 200);
    assert.equal((await t.api.get(url)).body.status, 'ACTIVE');
    assert.equal((await webhook(t, { id: 'evt_other', type: 'charge.succeeded', data: { object: { id: 'ch_1' } } })).status, 200);
    const canceled = await t.api.delete(url);
    assert.equal(canceled.body.status, 'CANCELED');
    assert.equal((await webhook(t, event('active'))).status, 200);
    assert.equal((await t.api.get(url)).body.status, 'CANCELED', 'a late report does not bring it back');
  });

  test("an invoice is paid off-session; a card Stripe declines leaves it PAYMENT_FAILED with Stripe's words", async () => {
    const { t, patient, methods } = await setup();
    // An invoice as the job makes one, for a patient with a declining card first.
    await t.api.post(methods, { paymentMethodId: 'pm_card_chargeCustomerFail' });
    const now = app.services.clock.now();
    const [invoice] = await app.services.db
      .insertInto('invoices')
      .values({
        tenant_id: t.tenant.id,
        instance_id: t.instance.id,
        id: crypto.randomUUID(),
        number: 1,
        custom_invoice_id: 'INV-000001',
        status: 'OPEN',
        status_message: null,
        billing_type: 'SELF_PAY',
        payment_type: 'AUTO_CHARGE',
        currency: 'usd',
        invoice_date: now,
        due_date: now,
        care_member_id: null,
        care_member_name: null,
        patient_id: patient,
        patient_name: 'Pat Lee',
        amount: 15000,
        amount_paid: 0,
        encounter_id: crypto.randomUUID(),
        related_encounters: [],
        items: JSON.stringify([]),
        external_id: null,
        paid_at: null,
        created_at: now,
        updated_at: now,
        created_by: null,
        created_by_name: null,
        updated_by: null,
        updated_by_name: null,
      })
      .returningAll()
      .execute();
    const pay = `${t.base}/invoice/invoices/${invoice!.id}/pay`;
    const failed = await t.api.post(pay);
    assert.equal(failed.body.status, 'PAYMENT_FAILED', failed.text);
    assert.equal(failed.body.statusMessage, 'Your card was declined.');
    await t.api.post(methods, { paymentMethodId: 'pm_card_visa' });
    const paid = await t.api.post(pay);
    assert.equal(paid.body.status, 'PAID', paid.text);
    const charge = stripe.received.filter((entry) => entry.path === '/v1/payment_intents').at(-1)!;
    assert.deepEqual(
      {
        amount: charge.fields.amount,
        currency: charge.fields.currency,
        off_session: charge.fields.off_session,
        confirm: charge.fields.confirm,
      },
      { amount: '15000', currency: 'usd', off_session: 'true', confirm: 'true' },
    );
  });
});
