import type { Authorship, Timestamp } from '../../db/schema.ts';

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

export interface SubscriptionsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  name: string;
  status: string;
  billing_period: string;
  care_member_id: string;
  patient_id: string;
  payment_type: string;
  /** bigint cents: read back as text. */
  amount: string | number;
  currency: string;
  start_date: Timestamp;
  number_of_cycles: number;
  driver: string;
  external_id: string;
  resumes_at: Timestamp | null;
  canceled_at: Timestamp | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    payment_customers: PaymentCustomersTable;
    subscriptions: SubscriptionsTable;
  }
}
