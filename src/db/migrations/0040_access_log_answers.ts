import { type Kysely, sql } from 'kysely';

/**
 * What an access record says of the answer it stands for (DECISIONS "Access log"):
 * - `caller_request_id`: the caller's own `X-Request-Id`, kept only when short and well-formed;
 *   `request_id` is always Cairn's own, unique to the answer.
 * - `matched`: the total the answer disclosed (`totalElements`, FHIR's count), which tells how
 *   many patients match a filter even when the page shows none of them.
 * Both are new columns of a distributed table: nullable, no default, so no row is rewritten.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE access_log ADD COLUMN caller_request_id text`.execute(db);
  await sql`ALTER TABLE access_log ADD COLUMN matched integer`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE access_log DROP COLUMN matched`.execute(db);
  await sql`ALTER TABLE access_log DROP COLUMN caller_request_id`.execute(db);
}
