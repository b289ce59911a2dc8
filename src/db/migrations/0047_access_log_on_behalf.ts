import { type Kysely, sql } from 'kysely';

/**
 * The access log's records of what an app read for a user (actor APP, `on_behalf_of` the user) and
 * of a user's signed links, found by the user as their own are by the actor index: the `actorId`
 * filter reads both, each through its index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX access_log_on_behalf_idx ON access_log (tenant_id, on_behalf_of, occurred_at DESC, id DESC)
    WHERE on_behalf_of IS NOT NULL
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX access_log_on_behalf_idx`.execute(db);
}
