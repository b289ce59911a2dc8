import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * Outside services: a tenant's (or one instance's) configuration of a channel, its credentials
 * sealed; and the sandbox driver's record of what it was given to send, kept in the database so
 * every node of a cluster sees the same sandbox.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE provider_settings (
      tenant_id uuid NOT NULL,
      -- The instance configured, or the nil uuid for the tenant's own configuration.
      instance_id uuid NOT NULL,
      channel text NOT NULL,
      driver text NOT NULL,
      options jsonb NOT NULL,
      -- The credentials among the options, sealed (AES-256-GCM); null when there are none.
      sealed text,
      updated_at timestamptz NOT NULL,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, channel, instance_id),
      FOREIGN KEY (tenant_id) REFERENCES tenants (id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'provider_settings');

  await sql`
    CREATE TABLE sandbox_messages (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      channel text NOT NULL,
      -- The id of what Cairn sent (an email's): a send repeated after a crash is recorded once.
      reference text,
      from_address text NOT NULL,
      to_address text NOT NULL,
      subject text,
      body text,
      attachment_names jsonb NOT NULL DEFAULT '[]',
      status text NOT NULL,
      error text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'sandbox_messages');
  await sql`CREATE UNIQUE INDEX sandbox_messages_reference_idx ON sandbox_messages (tenant_id, channel, reference)`.execute(db);
  await sql`CREATE INDEX sandbox_messages_instance_idx ON sandbox_messages (tenant_id, instance_id, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE sandbox_messages`.execute(db);
  await sql`DROP TABLE provider_settings`.execute(db);
}
