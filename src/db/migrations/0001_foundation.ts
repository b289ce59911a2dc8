import { type Kysely, sql } from 'kysely';
import { distributeByTenant, referenceTable } from '../distribution.ts';

/**
 * Tenancy, formations, callers, rate limits and audit.
 *
 * Distribution rule: every tenant table carries tenant_id first in its primary key and in
 * every unique and foreign key, so it is distributed by tenant on Citus: each migration says so
 * right after the table's CREATE TABLE (`distributeByTenant`, db/distribution.ts; nothing on
 * PostgreSQL and PGlite), before its indexes and before any table referencing it is made.
 * `tenants`, `api_client_keys` (it has a tenant_id, but /auth/token looks a key up with no
 * tenant) and `server_settings` are the only global tables: `referenceTable`, copied to every node.
 *
 * Every migration sends one statement per call, and a DROP names one object: Citus refuses a
 * string of several statements that alters a distributed table, and a DROP of several of them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  // Lets a GIN index lead with tenant_id (uuid), so one tenant's search never reads another's rows.
  // Only the tenant: each extra key costs a walk of that key's posting list (measured: 2.5 ms per
  // key at a million rows), and an instance's rows are few enough to filter on recheck.
  await sql`CREATE EXTENSION IF NOT EXISTS btree_gin`.execute(db);

  await sql`
    CREATE TABLE server_settings (
      name text PRIMARY KEY,
      value text NOT NULL
    )
  `.execute(db);
  await referenceTable(db, 'server_settings');

  await sql`
    CREATE TABLE tenants (
      id uuid PRIMARY KEY,
      name text NOT NULL UNIQUE,
      title text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `.execute(db);
  await referenceTable(db, 'tenants');

  await sql`
    CREATE TABLE instances (
      tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      name text NOT NULL,
      description text,
      current_formation_version integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, name)
    )
  `.execute(db);
  await distributeByTenant(db, 'instances');

  // version -1 is the draft; published versions count up from 1 and never change.
  await sql`
    CREATE TABLE formations (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      version integer NOT NULL,
      document jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      published_at timestamptz,
      published_by_name text,
      PRIMARY KEY (tenant_id, instance_id, version),
      FOREIGN KEY (tenant_id, instance_id) REFERENCES instances (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'formations');

  await sql`
    CREATE TABLE api_clients (
      tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      name text NOT NULL,
      client_key text NOT NULL,
      secret_hash text NOT NULL,
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id),
      UNIQUE (tenant_id, name),
      UNIQUE (tenant_id, client_key)
    )
  `.execute(db);
  await distributeByTenant(db, 'api_clients');

  // /auth/token names no tenant, so a client key must lead to its tenant from a global table.
  await sql`
    CREATE TABLE api_client_keys (
      client_key text PRIMARY KEY,
      tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
      client_id uuid NOT NULL
    )
  `.execute(db);
  await referenceTable(db, 'api_client_keys');

  await sql`
    CREATE TABLE users (
      tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
      id uuid NOT NULL,
      username text NOT NULL,
      email text NOT NULL,
      phone text,
      timezone text,
      locale text NOT NULL DEFAULT 'en-US',
      first_name text,
      last_name text,
      credentials text,
      terminology_name text,
      enabled boolean NOT NULL DEFAULT true,
      mfa_enabled boolean NOT NULL DEFAULT false,
      status_type text,
      sso_access boolean NOT NULL DEFAULT false,
      password_access boolean NOT NULL DEFAULT true,
      password_hash text,
      user_state text NOT NULL DEFAULT 'PROVISIONED',
      custom_user_attributes jsonb NOT NULL DEFAULT '{}',
      allowed_to_receive_calls boolean NOT NULL DEFAULT true,
      seats text[] NOT NULL DEFAULT '{}',
      seat_assign_allowed boolean NOT NULL DEFAULT false,
      admin_access_enabled boolean NOT NULL DEFAULT false,
      audit_security_access_enabled boolean NOT NULL DEFAULT false,
      application_access_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      deleted_at timestamptz,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'users');
  await sql`CREATE UNIQUE INDEX users_username_key ON users (tenant_id, lower(username)) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX users_email_key ON users (tenant_id, lower(email)) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX users_first_name_idx ON users (tenant_id, lower(first_name))`.execute(db);
  await sql`CREATE INDEX users_last_name_idx ON users (tenant_id, lower(last_name))`.execute(db);
  await sql`CREATE INDEX users_created_at_idx ON users (tenant_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX users_updated_at_idx ON users (tenant_id, updated_at, id)`.execute(db);
  await sql`CREATE INDEX users_state_idx ON users (tenant_id, user_state)`.execute(db);
  await sql`
    CREATE INDEX users_search_idx ON users USING gin (
      tenant_id, (lower(username || ' ' || email || ' ' || coalesce(first_name, '') || ' ' || coalesce(last_name, ''))) gin_trgm_ops
    )
  `.execute(db);

  // Roles and security policies held by a caller (user or API client) in one instance.
  await sql`
    CREATE TABLE access_grants (
      tenant_id uuid NOT NULL,
      principal_id uuid NOT NULL,
      principal_type text NOT NULL CHECK (principal_type IN ('USER', 'API_CLIENT')),
      instance_id uuid NOT NULL,
      grant_type text NOT NULL CHECK (grant_type IN ('SECURITY_ROLE', 'SECURITY_POLICY')),
      name text NOT NULL,
      primary_role boolean NOT NULL DEFAULT false,
      effective_date timestamptz,
      expiration_date timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, principal_id, instance_id, grant_type, name),
      FOREIGN KEY (tenant_id, instance_id) REFERENCES instances (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'access_grants');
  await sql`CREATE INDEX access_grants_role_idx ON access_grants (tenant_id, grant_type, name)`.execute(db);

  // One record per user: the regions and territories the user covers, per instance.
  await sql`
    CREATE TABLE user_territories (
      tenant_id uuid NOT NULL,
      user_id uuid NOT NULL,
      id uuid NOT NULL,
      territories jsonb NOT NULL DEFAULT '[]',
      full_territories_access_instances text[],
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      created_by uuid,
      updated_by uuid,
      PRIMARY KEY (tenant_id, user_id),
      FOREIGN KEY (tenant_id, user_id) REFERENCES users (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'user_territories');
  await sql`
    CREATE INDEX user_territories_territories_idx ON user_territories USING gin (tenant_id, territories jsonb_path_ops)
  `.execute(db);

  // Sliding window of recent token requests per caller; one row, updated atomically.
  await sql`
    CREATE TABLE token_limits (
      tenant_id uuid NOT NULL,
      principal_id uuid NOT NULL,
      recent timestamptz[] NOT NULL DEFAULT '{}',
      blocked_until timestamptz,
      PRIMARY KEY (tenant_id, principal_id)
    )
  `.execute(db);
  await distributeByTenant(db, 'token_limits');

  await sql`
    CREATE TABLE audit_events (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      instance_id uuid,
      occurred_at timestamptz NOT NULL DEFAULT now(),
      actor_type text NOT NULL,
      actor_id uuid,
      actor_name text,
      action text NOT NULL,
      entity_type text NOT NULL,
      entity_id text,
      patient_id uuid,
      request_id text,
      method text,
      route text,
      changed_fields text[],
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'audit_events');
  await sql`CREATE INDEX audit_events_time_idx ON audit_events (tenant_id, occurred_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX audit_events_patient_idx ON audit_events (tenant_id, patient_id, occurred_at DESC)`.execute(db);
  await sql`
    CREATE INDEX audit_events_entity_idx ON audit_events (tenant_id, entity_type, entity_id, occurred_at DESC)
  `.execute(db);
  await sql`CREATE INDEX audit_events_actor_idx ON audit_events (tenant_id, actor_id, occurred_at DESC)`.execute(db);
  await sql`CREATE INDEX audit_events_action_idx ON audit_events (tenant_id, action, occurred_at DESC)`.execute(db);
  await sql`CREATE INDEX audit_events_instance_idx ON audit_events (tenant_id, instance_id, occurred_at DESC)`.execute(db);
  await sql`CREATE INDEX audit_events_actor_type_idx ON audit_events (tenant_id, actor_type, occurred_at DESC)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE audit_events`.execute(db);
  await sql`DROP TABLE token_limits`.execute(db);
  await sql`DROP TABLE user_territories`.execute(db);
  await sql`DROP TABLE access_grants`.execute(db);
  await sql`DROP TABLE users`.execute(db);
  await sql`DROP TABLE api_client_keys`.execute(db);
  await sql`DROP TABLE api_clients`.execute(db);
  await sql`DROP TABLE formations`.execute(db);
  await sql`DROP TABLE instances`.execute(db);
  await sql`DROP TABLE tenants`.execute(db);
  await sql`DROP TABLE server_settings`.execute(db);
}
