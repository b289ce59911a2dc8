import { type Kysely, sql } from 'kysely';

/**
 * `cairn_access_log_remove` counts a retention's days in UTC, as the retention job does (86,400 s a
 * day): in a session of another zone a day across a daylight-saving change is 23 or 25 hours, and
 * a seal the job found old enough would be refused near the edge.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER FUNCTION cairn_access_log_remove(uuid, bigint, bigint, text, text, jsonb, timestamptz, jsonb) SET TimeZone = 'UTC'
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER FUNCTION cairn_access_log_remove(uuid, bigint, bigint, text, text, jsonb, timestamptz, jsonb) RESET TimeZone
  `.execute(db);
}
