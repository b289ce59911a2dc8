import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/** Subscriptions (002 "Subscription"): a patient's recurring charge at the payments provider. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE subscriptions (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      name text NOT NULL,
      status text NOT NULL,
      billing_period text NOT NULL,
      care_member_id uuid NOT NULL,
      patient_id uuid NOT NULL,
      payment_type text NOT NULL,
      amount bigint NOT NULL,
      currency text NOT NULL,
      start_date timestamptz NOT NULL,
      number_of_cycles integer NOT NULL,
      driver text NOT NULL,
      external_id text NOT NULL,
      resumes_at timestamptz,
      canceled_at timestamptz,
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
  await distributeByTenant(db, 'subscriptions');
  await sql`CREATE INDEX subscriptions_instance_idx ON subscriptions (tenant_id, instance_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX subscriptions_patient_idx ON subscriptions (tenant_id, patient_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX subscriptions_status_idx ON subscriptions (tenant_id, instance_id, status, created_at, id)`.execute(db);
  await sql`CREATE UNIQUE INDEX subscriptions_external_key ON subscriptions (tenant_id, driver, external_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE subscriptions;`.execute(db);
}
