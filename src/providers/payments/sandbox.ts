import { randomUUID } from 'node:crypto';
import { ProviderError } from '../channels.ts';
import type { PaymentsDriver, PaymentsEnv } from './driver.ts';

/**
 * The default payments driver: no money moves. It takes Stripe's well-known test method ids
 * (`pm_card_visa`, `pm_card_mastercard`, ...) as a test-mode account would, refuses the ones
 * Stripe declines on attach (`pm_card_chargeDeclined...`) with Stripe's words, and declines
 * charges on `pm_card_chargeCustomerFail`, which Stripe attaches but will not charge.
 */
export function sandboxPayments(env: PaymentsEnv): PaymentsDriver {
  return {
    async createSubscription(_scope, input) {
      if (input.paymentMethodId === 'pm_card_chargeCustomerFail') {
        throw new ProviderError('card_declined', 'Your card was declined.', true);
      }
      // Like a schedule: waiting for its start date, else running from now.
      const status = input.startDate.getTime() > env.clock.now().getTime() ? 'NOT_STARTED' : 'ACTIVE';
      return { externalId: `sub_sandbox_${input.key.replaceAll('-', '')}`, status };
    },
    async cancelSubscription(_scope, externalId) {
      return { externalId, status: 'CANCELED' };
    },
    async saveMethod(_scope, input) {
      if (!/^pm_[A-Za-z0-9_]{1,200}$/.test(input.paymentMethodId)) {
        throw new ProviderError('resource_missing', `No such PaymentMethod: '${input.paymentMethodId}'`, true);
      }
      if (input.paymentMethodId.startsWith('pm_card_chargeDeclined') || input.paymentMethodId.includes('_chargeDeclined')) {
        throw new ProviderError('card_declined', 'Your card was declined.', true);
      }
      return {
        customerId: input.customerId ?? `cus_sandbox_${randomUUID().replaceAll('-', '')}`,
        paymentMethodId: input.paymentMethodId,
      };
    },
    async charge(_scope, input) {
      if (input.paymentMethodId === 'pm_card_chargeCustomerFail') {
        throw new ProviderError('card_declined', 'Your card was declined.', true);
      }
      return { externalId: `pi_sandbox_${randomUUID().replaceAll('-', '')}` };
    },
  };
}
