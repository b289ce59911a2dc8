import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the payments area adds to the shared catalogs, beside its routes. */

export const paymentPermissions = {
  PAYMENT_METHOD_UPDATE: "Save a patient's payment method for later charges (000: payment methods, UPDATE)",
  SUBSCRIPTION_READ: "Read patients' subscriptions",
  SUBSCRIPTION_UPDATE: 'Start and cancel subscriptions',
} as const;

export const paymentErrors = {
  PAYMENTS_NOT_LICENSED: {
    status: 403,
    componentType: 'PAYMENT',
    message: 'The tenant has no licence for the payment-provider integration',
  },
  PAYMENT_METHOD_REJECTED: {
    status: 400,
    componentType: 'PAYMENT',
    message: 'The payment provider did not take the payment method',
  },
  SUBSCRIPTION_NOT_FOUND: { status: 404, componentType: 'PAYMENT', message: 'Subscription not found' },
  PAYMENT_METHOD_MISSING: {
    status: 400,
    componentType: 'PAYMENT',
    message: 'The patient has no saved payment method: save one with POST /payment/patients/{patientId}/payment-methods',
  },
  PAYMENT_DECLINED: { status: 400, componentType: 'PAYMENT', message: 'The payment provider declined the charge' },
  PAYMENT_PROVIDER_UNAVAILABLE: {
    status: 503,
    componentType: 'PAYMENT',
    message: 'The payments provider did not answer: nothing was saved or charged, try again',
  },
} as const;

export const paymentEvents = {
  SUBSCRIPTION: {
    description: "Patients' subscriptions: started, and moved on by the provider or canceled",
    subtypes: ['SUBSCRIPTION_CREATED', 'SUBSCRIPTION_UPDATED'],
  },
} as const satisfies EventCatalog;

export const paymentAuditActions = {
  PAYMENT_METHOD_SAVED: {
    description: "A patient's payment method was saved at the payments provider",
    events: ['PATIENT_UPDATED'],
  },
  SUBSCRIPTION_CREATED: { description: 'A subscription was started at the payments provider', events: ['SUBSCRIPTION_CREATED'] },
  SUBSCRIPTION_STATUS_CHANGED: {
    description: 'A subscription was canceled, or the provider moved it on',
    events: ['SUBSCRIPTION_UPDATED'],
  },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof paymentPermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof paymentErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof paymentAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof paymentEvents> {}
}
