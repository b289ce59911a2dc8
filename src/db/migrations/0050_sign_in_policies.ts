import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * A tenant's sign-in policy (docs/identity.md "MFA"): whether every user who signs in with a
 * password must have a second factor. A row only once an administrator sets it; none is the default
 * (not required). The tenant's: one shard, read in the sign-in's own statement.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE sign_in_policies (
      tenant_id uuid NOT NULL PRIMARY KEY,
      mfa_required boolean NOT NULL,
      updated_at timestamptz NOT NULL
    )
  `.execute(db);
  await distributeByTenant(db, 'sign_in_policies');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE sign_in_policies`.execute(db);
}
