import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Invoices (002 "Invoice", DECISIONS §8): made by the invoices.generate job when a SELF_PAY
 * encounter with visit services is FINALIZED, one per encounter. `custom_invoice_id` counts per
 * tenant from invoice_numbers, whose row a making transaction holds until it commits: numbers
 * have no gaps and no twins. Each list filter and sort has an index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE invoice_numbers (
      tenant_id uuid NOT NULL,
      last bigint NOT NULL,
      PRIMARY KEY (tenant_id)
    )
  `.execute(db);
  await distributeByTenant(db, 'invoice_numbers');

  await sql`
    CREATE TABLE invoices (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      number bigint NOT NULL,
      custom_invoice_id text NOT NULL,
      status text NOT NULL,
      status_message text,
      billing_type text NOT NULL,
      payment_type text NOT NULL,
      currency text NOT NULL,
      invoice_date timestamptz NOT NULL,
      due_date timestamptz NOT NULL,
      care_member_id uuid,
      care_member_name text,
      patient_id uuid NOT NULL,
      patient_name text NOT NULL,
      amount bigint NOT NULL,
      amount_paid bigint NOT NULL DEFAULT 0,
      encounter_id uuid NOT NULL,
      related_encounters uuid[] NOT NULL,
      items jsonb NOT NULL,
      external_id text,
      paid_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, patient_id) REFERENCES patients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'invoices');
  await sql`CREATE UNIQUE INDEX invoices_number_key ON invoices (tenant_id, number)`.execute(db);
  await sql`CREATE UNIQUE INDEX invoices_encounter_key ON invoices (tenant_id, encounter_id)`.execute(db);
  await sql`CREATE INDEX invoices_instance_date_idx ON invoices (tenant_id, instance_id, invoice_date, id)`.execute(db);
  await sql`CREATE INDEX invoices_instance_due_idx ON invoices (tenant_id, instance_id, due_date, id)`.execute(db);
  await sql`CREATE INDEX invoices_instance_amount_idx ON invoices (tenant_id, instance_id, amount, id)`.execute(db);
  await sql`CREATE INDEX invoices_instance_number_idx ON invoices (tenant_id, instance_id, number)`.execute(db);
  await sql`CREATE INDEX invoices_status_idx ON invoices (tenant_id, instance_id, status, due_date, id)`.execute(db);
  await sql`CREATE INDEX invoices_patient_idx ON invoices (tenant_id, patient_id, invoice_date, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE invoices`.execute(db);
  await sql`DROP TABLE invoice_numbers`.execute(db);
}
