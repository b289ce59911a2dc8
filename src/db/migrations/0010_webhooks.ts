import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Webhooks (DECISIONS §9): the subscriptions, one delivery per event and subscription, and every
 * attempt to deliver it (what `GET /{tenant}/admin/audit-webhook` lists). A delivery keeps the body
 * it sends, so its retries send the same bytes even after the outbox has been pruned.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE webhooks (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      name text NOT NULL,
      title text,
      url text NOT NULL,
      -- Ids of the instances it hears; empty: all of them.
      instance_ids uuid[] NOT NULL DEFAULT '{}',
      event_entities text[] NOT NULL DEFAULT '{}',
      event_subtypes text[] NOT NULL DEFAULT '{}',
      -- The signing key (whsec_...). It signs, so it is kept, not hashed; it is shown only when made.
      secret text NOT NULL,
      -- API (the admin routes) or FORMATION (the webhooks section of an instance's formation).
      source text NOT NULL,
      -- FORMATION webhooks: the instance whose formation declares them.
      formation_instance_id uuid,
      -- The outbox's sequence when it was made: it receives the events after, none from before.
      after_seq bigint NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'webhooks');
  await sql`
    CREATE UNIQUE INDEX webhooks_name_idx ON webhooks
      (tenant_id, coalesce(formation_instance_id, '00000000-0000-0000-0000-000000000000'::uuid), name)
  `.execute(db);

  await sql`
    CREATE TABLE webhook_deliveries (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      webhook_id uuid NOT NULL,
      event_id uuid NOT NULL,
      event_entity text NOT NULL,
      event_subtype text NOT NULL,
      record_id text,
      body text NOT NULL,
      -- PENDING until an attempt is answered 2xx (DELIVERED) or the last one fails (FAILED).
      state text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'webhook_deliveries');
  await sql`
    CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (tenant_id, webhook_id, created_at DESC, id DESC)
  `.execute(db);

  await sql`
    CREATE TABLE webhook_attempts (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      delivery_id uuid NOT NULL,
      webhook_id uuid NOT NULL,
      attempt integer NOT NULL,
      -- Where it was posted (the subscription's URL then; it may change since).
      url text NOT NULL,
      -- SENT while the request is out; then DELIVERED (2xx) or FAILED.
      status text NOT NULL,
      -- The receiver's status as production names it (OK, BAD_REQUEST, ...), or null without an answer.
      status_code text,
      http_status integer,
      -- Why there was no 2xx without an answer: TIMEOUT, ADDRESS_NOT_ALLOWED, CONNECTION_FAILED, ...
      error text,
      latency_ms integer,
      started_at timestamptz NOT NULL,
      finished_at timestamptz,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'webhook_attempts');
  await sql`CREATE INDEX webhook_attempts_time_idx ON webhook_attempts (tenant_id, started_at DESC, id DESC)`.execute(db);
  await sql`
    CREATE INDEX webhook_attempts_webhook_idx ON webhook_attempts (tenant_id, webhook_id, started_at DESC, id DESC)
  `.execute(db);
  await sql`
    CREATE INDEX webhook_attempts_delivery_idx ON webhook_attempts (tenant_id, delivery_id, started_at DESC, id DESC)
  `.execute(db);
  await sql`
    CREATE INDEX webhook_attempts_status_idx ON webhook_attempts (tenant_id, status, started_at DESC, id DESC)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE webhook_attempts`.execute(db);
  await sql`DROP TABLE webhook_deliveries`.execute(db);
  await sql`DROP TABLE webhooks`.execute(db);
}
