import type { AreaFixtures } from '../../test/route-fixtures.ts';

/** The patient's saved payment method (the sandbox's test card), and a subscription on it. */
export const fixtures: AreaFixtures = {
  async seed(f) {
    const { t, paths } = f;
    await f.call(
      'POST',
      `${paths.instance}/payment/patients/{patientId}/payment-methods`,
      `${t.base}/payment/patients/${f.ids.patient}/payment-methods`,
      { paymentMethodId: 'pm_card_visa' },
    );
    const subscription = await f.call('POST', `${paths.instance}/payment/subscriptions`, `${t.base}/payment/subscriptions`, {
      name: `Coaching ${f.marker}`,
      billingPeriod: 'MONTHLY',
      careMember: { id: f.ids.user },
      patient: { id: f.ids.patient },
      paymentTypeInfo: { paymentType: 'AUTO_CHARGE' },
      price: { amount: 4900, currency: 'usd' },
      startDate: '2030-01-01T00:00:00.000Z',
      numberOfCycles: 12,
    });
    f.ids.subscription = subscription.id;
  },
  params: { subscriptionId: (f) => f.ids.subscription },
};
