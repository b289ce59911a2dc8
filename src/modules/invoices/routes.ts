import { eachPatient, itsPatient, thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { PageObject, pageObject } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { invoicePage, invoiceView, requireInvoice } from './invoices.ts';
import { payInvoice } from './pay.ts';
import { EncounterInvoiceParams, Invoice, InvoiceListQuery, InvoiceParams, PatientInvoiceParams } from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Invoices'];
const base = '/:tenantName/:instanceName/invoice';
const listNote =
  'Page object, newest invoice first. Filters (DECISIONS §8): `status` (OPEN, PAID, PAYMENT_FAILED), `patientId`, `dueAfter` (inclusive) and `dueBefore` (exclusive). Sort: invoiceDate, dueDate, amount, customInvoiceId. `size` 1–1000. Invoices are made by Cairn when a SELF_PAY encounter with visit services is FINALIZED.';

/** 002 "Payments and invoices": the four invoice reads. */
const invoiceRoutes: AreaPlugin = async (app) => {
  app.get(
    `${base}/invoices`,
    {
      config: needs('INVOICE_READ', { discloses: eachPatient('INVOICE', 'content', 'patient.id') }),
      schema: {
        tags,
        summary: "The instance's invoices",
        description: listNote,
        params: InstanceParams,
        querystring: InvoiceListQuery,
        response: { 200: PageObject(Invoice), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...filters } = request.query;
      const { content, total, sorted } = await invoicePage(contextOf(request), filters, { page, size }, sort);
      return pageObject(content, total, { page, size }, sorted);
    },
  );

  app.get(
    `${base}/invoices/:invoiceId`,
    {
      config: needs('INVOICE_READ', { discloses: itsPatient('INVOICE', 'patient.id') }),
      schema: {
        tags,
        summary: 'An invoice, by its id (404 INVOICE_NOT_FOUND)',
        params: InvoiceParams,
        response: { 200: Invoice, ...errors },
      },
    },
    async (request) => invoiceView(await requireInvoice(contextOf(request), request.params.invoiceId)),
  );

  app.post(
    `${base}/invoices/:invoiceId/pay`,
    {
      config: needs('INVOICE_PAY', { discloses: itsPatient('INVOICE', 'patient.id') }),
      schema: {
        tags,
        summary: "Pay an invoice with the patient's saved payment method",
        description:
          "Charges what is due off-session through the instance's payments provider: PAID with `paidAt`, or PAYMENT_FAILED with the provider's words in `statusMessage` (it can be paid again, after another method is saved); both answer 200 with the invoice. 400 PAYMENT_METHOD_MISSING; 409 INVOICE_PAID; 403 PAYMENTS_NOT_LICENSED; 503 PAYMENT_PROVIDER_UNAVAILABLE when the provider did not answer (nothing changed). A retry is the same charge at the provider, never a second one.",
        params: InvoiceParams,
        response: { 200: Invoice, ...errors, 409: ErrorBody, 503: ErrorBody },
      },
    },
    async (request) => payInvoice(contextOf(request), request.params.invoiceId),
  );

  app.get(
    `${base}/patients/:patientId/invoices`,
    {
      config: needs('INVOICE_READ', { discloses: thePatient('INVOICE') }),
      schema: {
        tags,
        summary: "A patient's invoices",
        description: listNote,
        params: PatientInvoiceParams,
        querystring: InvoiceListQuery,
        response: { 200: PageObject(Invoice), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...filters } = request.query;
      const scoped = { ...filters, patientId: request.params.patientId };
      const { content, total, sorted } = await invoicePage(contextOf(request), scoped, { page, size }, sort);
      return pageObject(content, total, { page, size }, sorted);
    },
  );

  app.get(
    `${base}/patients/:patientId/encounters/:encounterId/invoices`,
    {
      config: needs('INVOICE_READ', { discloses: thePatient('INVOICE') }),
      schema: {
        tags,
        summary: "An encounter's invoices (one at most)",
        description: listNote,
        params: EncounterInvoiceParams,
        querystring: InvoiceListQuery,
        response: { 200: PageObject(Invoice), ...errors },
      },
    },
    async (request) => {
      const { page, size, sort, ...filters } = request.query;
      const { patientId, encounterId } = request.params;
      const scoped = { ...filters, patientId, encounterId };
      const { content, total, sorted } = await invoicePage(contextOf(request), scoped, { page, size }, sort);
      return pageObject(content, total, { page, size }, sorted);
    },
  );
};

export default invoiceRoutes;
