import type { Area } from '../../platform/area.ts';
import { invoiceAuditActions, invoiceErrors, invoiceEvents, invoicePermissions } from './catalog.ts';
import { GENERATE_INVOICE, runGenerateInvoice } from './generate.ts';
import { invoicePatientData } from './patient-data.ts';
import routes from './routes.ts';

/** Invoices (002 "Payments and invoices", DECISIONS §8): made for finalized self-pay encounters. */
export const area: Area = {
  name: 'invoices',
  routes,
  permissions: invoicePermissions,
  errors: invoiceErrors,
  auditActions: invoiceAuditActions,
  events: invoiceEvents,
  jobs: {
    [GENERATE_INVOICE]: {
      description: 'Makes the invoice of a SELF_PAY encounter with visit services once it is FINALIZED',
      run: runGenerateInvoice,
      after: ['ENCOUNTER_FINALIZED'],
      maxAttempts: 10,
      backoff: { baseMs: 10_000, maxMs: 30 * 60_000 },
    },
  },
  fixtures: new URL('./fixtures.ts', import.meta.url),
  patientData: invoicePatientData,
};
