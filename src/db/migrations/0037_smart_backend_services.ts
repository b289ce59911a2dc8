import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * SMART Backend Services (docs/fhir.md): an API client may register a JWK Set of public keys, with
 * which it signs the assertions it trades for a token. Each assertion's `jti` is kept until the
 * assertion expires, so one can be used once only; the table is the client's (tenant first), and
 * a client's expired ones are removed when it next asks for a token.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE api_clients ADD COLUMN jwks jsonb`.execute(db);
  await sql`
    CREATE TABLE client_assertions (
      tenant_id uuid NOT NULL,
      client_id uuid NOT NULL,
      jti text NOT NULL,
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (tenant_id, client_id, jti),
      FOREIGN KEY (tenant_id, client_id) REFERENCES api_clients (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'client_assertions');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE client_assertions`.execute(db);
  await sql`ALTER TABLE api_clients DROP COLUMN jwks`.execute(db);
}
