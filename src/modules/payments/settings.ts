import { Type } from 'typebox';
import { settingsSection } from '../../config.ts';

/** Which tenants hold the payments licence (000): the operator grants it, a tenant cannot grant itself one. */
export const paymentSettings = settingsSection(
  'payments',
  Type.Object({
    CAIRN_PAYMENTS_LICENSED_TENANTS: Type.String({
      default: '*',
      description:
        'The tenants licensed for the payment-provider integration, comma-separated names, or * for all; others get 403 PAYMENTS_NOT_LICENSED.',
    }),
  }),
  (e) => {
    const names = e.CAIRN_PAYMENTS_LICENSED_TENANTS.split(',').map((name) => name.trim());
    return { licensed: (tenantName: string) => names.includes('*') || names.includes(tenantName) };
  },
);
