import type { IncomingHttpHeaders } from 'node:http';
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

/** A recurring charge: `cycles` periods from `startDate`, then it completes. */
export interface NewSubscription {
  customerId: string;
  paymentMethodId: string;
  name: string;
  amount: number;
  currency: string;
  interval: 'day' | 'week' | 'month' | 'year';
  startDate: Date;
  cycles: number;
  /** Cairn's id: the provider's idempotency key for the create. */
  key: string;
}

/** In 002's words: NOT_STARTED, ACTIVE, PAST_DUE, CANCELED, COMPLETED, ... */
export interface SubscriptionState {
  externalId: string;
  status: string;
}

/** What a provider's signed webhook says: a subscription's new status, or nothing Cairn keeps. */
export interface PaymentsCallbacks {
  verify(request: { url: string; headers: IncomingHttpHeaders; params: Record<string, string>; body?: string }): boolean;
  read(body: string): SubscriptionState | null;
}

export interface PaymentsDriver {
  /** The provider's webhooks, when it sends any. */
  callbacks?: PaymentsCallbacks;
  /** Starts a subscription (NOT_STARTED until its start date, when the provider schedules it). */
  createSubscription(scope: ProviderScope, input: NewSubscription): Promise<SubscriptionState>;
  /** Cancels it at once: CANCELED. */
  cancelSubscription(scope: ProviderScope, externalId: string): Promise<SubscriptionState>;
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
  clock: { now(): Date };
}
