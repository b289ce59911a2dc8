import { type Static, Type } from 'typebox';
import { PagingQuery } from '../../http/pagination.ts';
import { DateTime, InstanceParams, Nullable, Uuid } from '../../wire/schemas.ts';

/** DECISIONS §8: an invoice is OPEN when made, then PAID, or PAYMENT_FAILED (and may still be paid). */
export const invoiceStatuses = ['OPEN', 'PAID', 'PAYMENT_FAILED'] as const;
export type InvoiceStatus = (typeof invoiceStatuses)[number];
const Status = Type.Enum(invoiceStatuses);

const IdName = Type.Object({ id: Uuid, name: Type.String() });

export const InvoiceItem = Type.Object({
  id: Uuid,
  description: Type.String(),
  quantity: Type.Integer(),
  unitAmount: Type.Integer({ description: 'Cents' }),
  serviceCode: Type.String({ description: "The formation's visit service" }),
  serviceModifiers: Type.Array(Type.String()),
});

export const Invoice = Type.Object({
  id: Uuid,
  customInvoiceId: Type.String({ description: 'INV-000001, numbered per tenant without gaps' }),
  status: Status,
  statusMessage: Nullable(Type.String({ description: "The payment provider's word when a payment failed" })),
  paymentTypeInfo: Type.Object({ paymentType: Type.String({ description: 'AUTO_CHARGE' }) }),
  billingType: Type.Union([Type.Literal('SELF_PAY'), Type.Literal('INSURANCE')]),
  currency: Type.String({ description: 'ISO 4217, lower case (usd)' }),
  invoiceDate: DateTime,
  dueDate: DateTime,
  invoiceItems: Type.Array(InvoiceItem),
  careMember: Nullable(IdName),
  patient: IdName,
  amount: Type.Integer({ description: 'The total, in cents' }),
  amountPaid: Type.Integer({ description: 'Cents' }),
  relatedEncounters: Type.Array(Uuid),
  paidAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
});
export type InvoiceView = Static<typeof Invoice>;

export const InvoiceListQuery = Type.Object({
  ...PagingQuery,
  status: Type.Optional(Status),
  patientId: Type.Optional(Uuid),
  dueBefore: Type.Optional(Type.String({ format: 'date-time', description: 'Due before this instant (exclusive)' })),
  dueAfter: Type.Optional(Type.String({ format: 'date-time', description: 'Due at or after this instant' })),
});
export type InvoiceFilters = Pick<Static<typeof InvoiceListQuery>, 'status' | 'patientId' | 'dueBefore' | 'dueAfter'>;

export const InvoiceParams = Type.Object({ ...InstanceParams.properties, invoiceId: Uuid });
export const PatientInvoiceParams = Type.Object({ ...InstanceParams.properties, patientId: Uuid });
export const EncounterInvoiceParams = Type.Object({ ...InstanceParams.properties, patientId: Uuid, encounterId: Uuid });
