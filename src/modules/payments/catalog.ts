import type { AuditActionCatalog } from '../../events/audit.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the payments area adds to the shared catalogs, beside its routes. */

export const paymentPermissions = {
  PAYMENT_METHOD_UPDATE: "Save a patient's payment method for later charges (000: payment methods, UPDATE)",
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
  PAYMENT_DECLINED: { status: 400, componentType: 'PAYMENT', message: 'The payment provider declined the charge' },
  PAYMENT_PROVIDER_UNAVAILABLE: {
    status: 503,
    componentType: 'PAYMENT',
    message: 'The payments provider did not answer: nothing was saved or charged, try again',
  },
} as const;

export const paymentAuditActions = {
  PAYMENT_METHOD_SAVED: {
    description: "A patient's payment method was saved at the payments provider",
    events: ['PATIENT_UPDATED'],
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
