import type { Authorship } from '../../db/schema.ts';

/** The payments area's table (migration 0022), merged into the database's `DB` type. */
export interface PaymentCustomersTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  patient_id: string;
  /** The driver that made the customer: a customer of one provider means nothing to another. */
  driver: string;
  customer_id: string;
  payment_method_id: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    payment_customers: PaymentCustomersTable;
  }
}
