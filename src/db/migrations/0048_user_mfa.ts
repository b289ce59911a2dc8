import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * A user's second factor (issue 41, docs/identity.md "MFA"): a TOTP secret, sealed as provider
 * credentials are (Cairn must compute codes from it, so it cannot be hashed), confirmed once the user
 * sends a code from it; the last time step a code was taken at, so each code works once; and the
 * recovery codes, kept as SHA-256 hashes. All are the tenant's: one shard.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE user_mfa (
      tenant_id uuid NOT NULL,
      user_id uuid NOT NULL,
      totp_sealed text NOT NULL,
      confirmed_at timestamptz,
      last_step bigint,
      PRIMARY KEY (tenant_id, user_id),
      FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'user_mfa');
  await sql`
    CREATE TABLE user_recovery_codes (
      tenant_id uuid NOT NULL,
      user_id uuid NOT NULL,
      code_hash text NOT NULL,
      used_at timestamptz,
      PRIMARY KEY (tenant_id, user_id, code_hash),
      FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'user_recovery_codes');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE user_recovery_codes`.execute(db);
  await sql`DROP TABLE user_mfa`.execute(db);
}
