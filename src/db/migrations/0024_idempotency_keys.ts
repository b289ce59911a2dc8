import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Idempotency keys (http/idempotency.ts): a write's key, per tenant and caller, with the request's
 * fingerprint and, once answered, the answer to replay. Kept 24 hours; the expiry job reads the
 * expiry index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE idempotency_keys (
      tenant_id uuid NOT NULL,
      caller_id uuid NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      -- Which claim of the key holds it: a claim taken over from a request that died leaves that request nothing to write.
      claim_id uuid NOT NULL,
      started_at timestamptz NOT NULL,
      committed_at timestamptz,
      status_code integer,
      response_headers jsonb,
      response_body bytea,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, caller_id, key)
    )
  `.execute(db);
  await distributeByTenant(db, 'idempotency_keys');
  await sql`CREATE INDEX idempotency_keys_expiry_idx ON idempotency_keys (expires_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE idempotency_keys;`.execute(db);
}
