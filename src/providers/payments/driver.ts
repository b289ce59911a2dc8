import type { Config } from '../../config.ts';
import type { ProviderScope } from '../slot.ts';

/**
 * What every payments driver does (002 "Payments and invoices"). Amounts are integer cents
 * (DECISIONS §8). A refusal the caller must hear (a card the provider will not take, a charge
 * declined) is a permanent ProviderError, its message the provider's.
 */

export interface SavedMethod {
  /** The provider's customer: made for the patient on the first method. */
  customerId: string;
  paymentMethodId: string;
}

export interface Charge {
  externalId: string;
}

export interface PaymentsDriver {
  /** Makes the customer when `customerId` is null, attaches the method and sets it up for off-session use. */
  saveMethod(
    scope: ProviderScope,
    input: { customerId: string | null; patientId: string; paymentMethodId: string },
  ): Promise<SavedMethod>;
  /** Charges a saved method off-session; `key` makes a retried charge the same charge. */
  charge(
    scope: ProviderScope,
    input: { customerId: string; paymentMethodId: string; amount: number; currency: string; description: string; key: string },
  ): Promise<Charge>;
}

export interface PaymentsEnv {
  config: Config;
}
