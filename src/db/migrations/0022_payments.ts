import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Payments (002 "Payments and invoices"): a patient's customer at the payments provider and the
 * method saved for off-session charges, one row a patient.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE payment_customers (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      driver text NOT NULL,
      customer_id text NOT NULL,
      payment_method_id text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, patient_id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'payment_customers');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE payment_customers;`.execute(db);
}
