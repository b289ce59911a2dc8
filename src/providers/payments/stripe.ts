import type Stripe from 'stripe';
import { type Static, Type } from 'typebox';
import { ProviderError } from '../channels.ts';
import type { PaymentsDriver } from './driver.ts';

/** The Stripe driver's options, a tenant's or the server's (CAIRN_STRIPE_*). */
export const StripeOptions = Type.Object({
  secretKey: Type.String({
    pattern: '^(sk|rk)_',
    maxLength: 300,
    description: 'A secret (sk_...) or restricted (rk_...) API key',
  }),
  webhookSecret: Type.String({
    pattern: '^whsec_',
    maxLength: 300,
    description: "The webhook endpoint's signing secret (whsec_...)",
  }),
  apiUrl: Type.String({
    default: 'https://api.stripe.com',
    description: "Stripe's API (the server's configuration may point elsewhere)",
  }),
});
type Options = Static<typeof StripeOptions>;

/** Stripe's words for a schedule or a subscription, in 002's (upper case: `not_started` → NOT_STARTED). */
export function stripeStatus(status: string): string {
  return status.toUpperCase();
}

/**
 * Payments through Stripe with its SDK (`stripe`). A patient is a Customer; a saved method is a
 * PaymentMethod attached to it and confirmed for off-session use by a SetupIntent; a charge is a
 * PaymentIntent confirmed off-session; a subscription is a SubscriptionSchedule of `cycles`
 * iterations on an inline price (so it starts on its date and completes by itself). Every create
 * carries an idempotency key, so a retried request is the same object at Stripe. Stripe's
 * webhooks come back to `<public>/<tenant>/<instance>/providers/payments/stripe/events`, checked
 * with the SDK against the endpoint's signing secret.
 */
export async function stripePayments(options: Record<string, unknown>): Promise<PaymentsDriver> {
  const o = options as Options;
  const url = new URL(o.apiUrl);
  // Loaded when a Stripe driver is first made: a server on the sandbox never loads the SDK.
  const { default: Stripe } = await import('stripe');
  const stripe = new Stripe(o.secretKey, {
    host: url.hostname,
    port: url.port || (url.protocol === 'http:' ? 80 : 443),
    protocol: url.protocol === 'http:' ? 'http' : 'https',
    maxNetworkRetries: 0,
    timeout: 20_000,
  });
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw stripeFailure(Stripe.errors, error);
    }
  };
  return {
    async saveMethod(_scope, input) {
      return call(async () => {
        const customerId =
          input.customerId ??
          (
            await stripe.customers.create(
              { metadata: { cairnPatientId: input.patientId } },
              { idempotencyKey: `customer-${input.patientId}` },
            )
          ).id;
        await stripe.paymentMethods.attach(input.paymentMethodId, { customer: customerId });
        await stripe.setupIntents.create({
          customer: customerId,
          payment_method: input.paymentMethodId,
          usage: 'off_session',
          confirm: true,
        });
        return { customerId, paymentMethodId: input.paymentMethodId };
      });
    },
    async charge(_scope, input) {
      return call(async () => {
        const intent = await stripe.paymentIntents.create(
          {
            amount: input.amount,
            currency: input.currency,
            customer: input.customerId,
            payment_method: input.paymentMethodId,
            off_session: true,
            confirm: true,
            description: input.description,
          },
          { idempotencyKey: `charge-${input.key}` },
        );
        if (intent.status !== 'succeeded') throw new ProviderError(intent.status, `The payment is ${intent.status}`, true);
        return { externalId: intent.id };
      });
    },
    async createSubscription(_scope, input) {
      return call(async () => {
        const product = await stripe.products.create({ name: input.name }, { idempotencyKey: `product-${input.key}` });
        const schedule = await stripe.subscriptionSchedules.create(
          {
            customer: input.customerId,
            start_date: Math.floor(input.startDate.getTime() / 1000),
            end_behavior: 'cancel',
            default_settings: { default_payment_method: input.paymentMethodId },
            phases: [
              {
                items: [
                  {
                    price_data: {
                      currency: input.currency,
                      product: product.id,
                      unit_amount: input.amount,
                      recurring: { interval: input.interval },
                    },
                  },
                ],
                duration: { interval: input.interval, interval_count: input.cycles },
              },
            ],
          },
          { idempotencyKey: `schedule-${input.key}` },
        );
        return { externalId: schedule.id, status: stripeStatus(schedule.status) };
      });
    },
    async cancelSubscription(_scope, externalId) {
      return call(async () => {
        const schedule = await stripe.subscriptionSchedules.cancel(externalId);
        return { externalId: schedule.id, status: stripeStatus(schedule.status) };
      });
    },
    callbacks: {
      verify(request) {
        const signature = request.headers['stripe-signature'];
        if (typeof signature !== 'string') return false;
        try {
          stripe.webhooks.constructEvent(request.body ?? '', signature, o.webhookSecret);
          return true;
        } catch {
          return false;
        }
      },
      read(body) {
        const event = JSON.parse(body) as { type?: string; data?: { object?: { id?: string; status?: string } } };
        const object = event.data?.object;
        if (!event.type?.startsWith('subscription_schedule.') || !object?.id || !object.status) return null;
        return { externalId: object.id, status: stripeStatus(object.status) };
      },
    },
  };
}

/** The SDK's error as a provider's: a card declined or a request Stripe refuses is final; the rest may pass later. */
function stripeFailure(errors: typeof Stripe.errors, error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof errors.StripeCardError || error instanceof errors.StripeInvalidRequestError) {
    return new ProviderError(error.code ?? error.type, error.message, true);
  }
  const message = error instanceof Error ? error.message : 'Stripe did not answer';
  return new ProviderError('stripe_unavailable', message, false);
}
