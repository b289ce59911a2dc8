import { type Kysely, sql } from 'kysely';

/**
 * Wrong secrets are limited per caller *and source address*, apart from the caller's own token
 * limit, so that failures from one place cannot block a client everywhere. The caller's own
 * window keeps the source ''.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE token_limits ADD COLUMN source text NOT NULL DEFAULT ''`.execute(db);
  await sql`ALTER TABLE token_limits DROP CONSTRAINT token_limits_pkey`.execute(db);
  await sql`ALTER TABLE token_limits ADD PRIMARY KEY (tenant_id, principal_id, source)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DELETE FROM token_limits WHERE source <> ''`.execute(db);
  await sql`ALTER TABLE token_limits DROP CONSTRAINT token_limits_pkey`.execute(db);
  await sql`ALTER TABLE token_limits ADD PRIMARY KEY (tenant_id, principal_id)`.execute(db);
  await sql`ALTER TABLE token_limits DROP COLUMN source`.execute(db);
}
