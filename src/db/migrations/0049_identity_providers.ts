import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Single sign-on (docs/identity.md): the OpenID Connect identity providers a tenant's people may
 * sign in with on the authorization servers' page, and which person at a provider is which user.
 * Both are the tenant's: one shard.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE identity_providers (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      name text NOT NULL,
      issuer text NOT NULL,
      client_id text NOT NULL,
      client_secret_sealed text,
      match_claim text NOT NULL CHECK (match_claim IN ('email', 'sub')),
      create_users boolean NOT NULL DEFAULT false,
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, name)
    )
  `.execute(db);
  await distributeByTenant(db, 'identity_providers');
  await sql`
    CREATE TABLE user_identities (
      tenant_id uuid NOT NULL,
      provider_id uuid NOT NULL,
      subject text NOT NULL,
      user_id uuid NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, provider_id, subject),
      FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE,
      FOREIGN KEY (tenant_id, provider_id) REFERENCES identity_providers (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'user_identities');
  // Whether a user already has a person at a provider (matching by subject), and the users' cascade.
  await sql`CREATE INDEX user_identities_user ON user_identities (tenant_id, user_id, provider_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE user_identities`.execute(db);
  await sql`DROP TABLE identity_providers`.execute(db);
}
