import { type Kysely, sql } from 'kysely';

/**
 * A job's end in one call: it goes (succeeded) or turns DEAD, and the next live job of its key is
 * promoted, atomically and in one round trip (jobs/queue.ts). Before, the ending statement called
 * `cairn_promote_next` in its RETURNING; Citus refuses a volatile function there. Each statement
 * of a VOLATILE function takes a fresh snapshot, so the promotion sees a job an enqueuer
 * committed while the end waited for that enqueuer's lock on the ending job.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION cairn_end_job(tenant uuid, job uuid, attempt integer, dead_error text, at timestamptz)
    RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      key text;
    BEGIN
      IF dead_error IS NULL THEN
        DELETE FROM jobs WHERE tenant_id = tenant AND id = job AND attempts = attempt RETURNING queue_key INTO key;
      ELSE
        UPDATE jobs SET state = 'DEAD', run_at = NULL, locked_by = NULL, last_error = dead_error, updated_at = at
        WHERE tenant_id = tenant AND id = job AND attempts = attempt RETURNING queue_key INTO key;
      END IF;
      IF NOT FOUND THEN
        RETURN false;
      END IF;
      IF key IS NOT NULL THEN
        UPDATE jobs SET state = 'QUEUED', updated_at = at
        WHERE tenant_id = tenant AND state = 'WAITING' AND id = (
          SELECT id FROM jobs
          WHERE tenant_id = tenant AND queue_key = key AND state <> 'DEAD'
          ORDER BY seq LIMIT 1);
      END IF;
      RETURN true;
    END $$
  `.execute(db);
  await sql`DROP FUNCTION cairn_promote_next(uuid, text, uuid, timestamptz)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE FUNCTION cairn_promote_next(tenant uuid, key text, ended uuid, at timestamptz)
    RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      UPDATE jobs SET state = 'QUEUED', updated_at = at
      WHERE tenant_id = tenant AND state = 'WAITING' AND id = (
        SELECT id FROM jobs
        WHERE tenant_id = tenant AND queue_key = key AND state <> 'DEAD' AND id <> ended
        ORDER BY seq LIMIT 1);
      RETURN FOUND;
    END $$
  `.execute(db);
  await sql`DROP FUNCTION cairn_end_job(uuid, uuid, integer, text, timestamptz)`.execute(db);
}
