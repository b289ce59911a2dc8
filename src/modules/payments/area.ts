import type { Area } from '../../platform/area.ts';
import { paymentsSlot } from '../../providers/payments/payments.ts';
import { paymentAuditActions, paymentErrors, paymentEvents, paymentPermissions } from './catalog.ts';
import routes from './routes.ts';
import { paymentSettings } from './settings.ts';

/** Payment methods (002 "Payments and invoices"), through the payments provider; invoices are paid with them. */
export const area: Area = {
  name: 'payments',
  routes,
  permissions: paymentPermissions,
  errors: paymentErrors,
  auditActions: paymentAuditActions,
  events: paymentEvents,
  settings: paymentSettings,
  providers: [paymentsSlot],
  // Its rows of a patient go with the patient's row (their keys cascade).
  patientData: { tables: ['payment_customers', 'subscriptions'] },
  fixtures: new URL('./fixtures.ts', import.meta.url),
};
