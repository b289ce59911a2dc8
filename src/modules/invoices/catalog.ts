import type { AuditActionCatalog } from '../../events/audit.ts';
import type { EventCatalog, SubtypesOf } from '../../events/outbox.ts';
import type { NamesOf } from '../../wire/errors.ts';

/** What the invoices area adds to the shared catalogs, beside its routes. */

export const invoicePermissions = {
  INVOICE_READ: 'Read invoices (000: Billing and Invoices)',
  INVOICE_PAY: "Pay an invoice with the patient's saved payment method",
} as const;

export const invoiceErrors = {
  INVOICE_NOT_FOUND: { status: 404, componentType: 'INVOICE', message: 'Invoice not found' },
  INVOICE_PAID: { status: 409, componentType: 'INVOICE', message: 'The invoice is paid already' },
} as const;

export const invoiceEvents = {
  INVOICE: {
    description: 'Invoices: made for a finalized self-pay encounter, then paid or not',
    subtypes: ['INVOICE_CREATED', 'INVOICE_UPDATED'],
  },
} as const satisfies EventCatalog;

export const invoiceAuditActions = {
  INVOICE_CREATED: { description: 'An invoice was made for a finalized encounter', events: ['INVOICE_CREATED'] },
  INVOICE_STATUS_CHANGED: { description: 'An invoice was paid, or its payment failed', events: ['INVOICE_UPDATED'] },
} as const satisfies AuditActionCatalog;

declare module '../../formation/permissions.ts' {
  interface Permissions extends NamesOf<typeof invoicePermissions> {}
}
declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof invoiceErrors> {}
}
declare module '../../events/audit.ts' {
  interface AuditActions extends NamesOf<typeof invoiceAuditActions> {}
}
declare module '../../events/outbox.ts' {
  interface EventSubtypes extends SubtypesOf<typeof invoiceEvents> {}
}
