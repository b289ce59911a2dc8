/** What other areas may use of payments: invoices are paid with a patient's saved method. */
export { providerRefusal, requireLicence, savedMethodOf } from './operations.ts';
