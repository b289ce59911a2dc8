import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';

/** 002's subscription statuses (a provider's word outside them is kept as it came). */
export const subscriptionStatuses = [
  'NEW',
  'ACTIVE',
  'CANCELED',
  'INCOMPLETE',
  'INCOMPLETE_EXPIRED',
  'PAST_DUE',
  'PAUSED',
  'TRIALING',
  'UNPAID',
  'COMPLETED',
  'NOT_STARTED',
  'RELEASED',
] as const;

export const billingPeriods = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' } as const;

const IdOnly = Type.Object({ id: Uuid });
const IdName = Type.Object({ id: Uuid, name: Type.String() });
const PaymentTypeInfo = Type.Object({
  paymentType: Type.Literal('AUTO_CHARGE', { description: 'AUTO_CHARGE: the saved method is charged each period' }),
});
const Price = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: 99_999_999, description: 'Integer cents (DECISIONS §8)' }),
  currency: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 (usd)' }),
});

export const SubscriptionInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  billingPeriod: Type.Enum(Object.keys(billingPeriods) as (keyof typeof billingPeriods)[], { description: 'MONTHLY is used' }),
  careMember: IdOnly,
  patient: IdOnly,
  paymentTypeInfo: PaymentTypeInfo,
  price: Price,
  startDate: Type.String({ format: 'date-time' }),
  numberOfCycles: Type.Integer({ minimum: 1, maximum: 1000, description: 'Periods charged, then the subscription completes' }),
});
export type SubscriptionInputBody = Static<typeof SubscriptionInput>;

export const Subscription = Type.Object({
  id: Uuid,
  name: Type.String(),
  status: Type.String({ description: subscriptionStatuses.join(', ') }),
  pauseCollection: Nullable(Type.Object({ resumesAt: Nullable(DateTime) })),
  billingPeriod: Type.String(),
  careMember: IdName,
  patient: IdName,
  paymentTypeInfo: Type.Object({ paymentType: Type.String() }),
  price: Type.Object({ amount: Type.Integer(), currency: Type.String() }),
  startDate: DateTime,
  numberOfCycles: Type.Integer(),
  canceledAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type SubscriptionView = Static<typeof Subscription>;

export const SubscriptionListQuery = Type.Object({
  ...PagingQuery,
  patientId: Type.Optional(Uuid),
  status: Type.Optional(Type.String({ maxLength: 40 })),
});

export const SubscriptionParams = Type.Object({ ...InstanceParams.properties, subscriptionId: Uuid });
