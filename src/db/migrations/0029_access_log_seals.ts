import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * The access log's hash chain (modules/access-log/chain.ts): each seal covers a tenant's records
 * after the previous seal's border up to its own, in (time, id) order, and holds the SHA-256 of
 * the previous seal's hash and those records. The records are never updated: a periodic job adds
 * seals, so a record changed, removed or added inside a sealed range breaks its seal's hash.
 * `removed_at` marks a seal whose records retention removed: its hash still anchors the chain.
 * The time index serves "records older than the cutoff" for the retention job.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE access_log_seals (
      tenant_id uuid NOT NULL,
      seq bigint NOT NULL,
      through_at timestamptz NOT NULL,
      through_id uuid NOT NULL,
      records integer NOT NULL,
      previous_hash text NOT NULL,
      hash text NOT NULL,
      sealed_at timestamptz NOT NULL,
      removed_at timestamptz,
      PRIMARY KEY (tenant_id, seq)
    )
  `.execute(db);
  await distributeByTenant(db, 'access_log_seals');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE access_log_seals`.execute(db);
}
