import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * SMART App Launch (docs/identity.md): the apps a tenant's administrator registers, the records of
 * the authorization server (oidc-provider's sessions, interactions, codes, tokens and grants, as its
 * adapter stores them), and the keys its ID tokens are signed with. All are the tenant's: one shard.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE smart_apps (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      client_id text NOT NULL,
      name text NOT NULL,
      client_type text NOT NULL CHECK (client_type IN ('PUBLIC', 'CONFIDENTIAL_SYMMETRIC', 'CONFIDENTIAL_ASYMMETRIC')),
      secret_sealed text,
      jwks jsonb,
      jwks_uri text,
      redirect_uris text[] NOT NULL,
      scopes text[] NOT NULL,
      launch_kinds text[] NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, client_id),
      UNIQUE (tenant_id, name)
    )
  `.execute(db);
  await distributeByTenant(db, 'smart_apps');
  await sql`
    CREATE TABLE oauth_records (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      model text NOT NULL,
      id text NOT NULL,
      payload jsonb NOT NULL,
      grant_id text,
      client_id text,
      uid text,
      expires_at timestamptz,
      PRIMARY KEY (tenant_id, model, id),
      FOREIGN KEY (tenant_id, instance_id) REFERENCES instances (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'oauth_records');
  // A grant's revocation takes every record it issued; a session is found by its cookie's uid.
  await sql`CREATE INDEX oauth_records_grant ON oauth_records (tenant_id, grant_id) WHERE grant_id IS NOT NULL`.execute(db);
  // An app deleted takes its records.
  await sql`CREATE INDEX oauth_records_client ON oauth_records (tenant_id, client_id) WHERE client_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX oauth_records_uid ON oauth_records (tenant_id, uid) WHERE uid IS NOT NULL`.execute(db);
  // The expiry job's sweep, every tenant's at once (db/cross-tenant.ts).
  await sql`CREATE INDEX oauth_records_expiry ON oauth_records (expires_at)`.execute(db);
  await sql`
    CREATE TABLE oauth_keys (
      tenant_id uuid NOT NULL,
      kid text NOT NULL,
      sealed text NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, kid)
    )
  `.execute(db);
  await distributeByTenant(db, 'oauth_keys');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE oauth_keys`.execute(db);
  await sql`DROP TABLE oauth_records`.execute(db);
  await sql`DROP TABLE smart_apps`.execute(db);
}
