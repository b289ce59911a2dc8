import { type Kysely, sql } from 'kysely';

/**
 * The token limits' sliding window (modules/auth/token-limit.ts) keeps a row's recent request
 * times in an array; the upsert that adds one keeps those after the window's start. Citus refuses
 * a sub-query inside an INSERT (the upsert's SET), so the filter is this function: immutable (its
 * answer depends on its arguments alone), so every node may run it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION cairn_times_after(times timestamptz[], since timestamptz) RETURNS timestamptz[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
      SELECT coalesce(array_agg(t ORDER BY t), '{}') FROM unnest(times) AS t WHERE t > since
    $$
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION cairn_times_after(timestamptz[], timestamptz)`.execute(db);
}
