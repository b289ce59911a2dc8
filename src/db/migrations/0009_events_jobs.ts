import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * The work after a commit. `events` is the outbox: one row per change of a stored record, written
 * in the change's transaction and deleted once its consumers took it (a delete costs less than
 * marking it: no new row version, no index entry; the permanent trail is `audit_events`). `jobs`
 * is the durable queue every node's workers take work from (`FOR UPDATE SKIP LOCKED`). Removing a deleted file's blob becomes a job: the `files` trigger
 * now enqueues one in the deleting transaction, where it used to queue the key in
 * `file_removals` for a sweep.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE events (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      instance_id uuid,
      event_entity text NOT NULL,
      event_subtype text NOT NULL,
      record_id text,
      patient_id uuid,
      actor_type text NOT NULL,
      actor_id uuid,
      request_id text,
      occurred_at timestamptz NOT NULL,
      data jsonb NOT NULL DEFAULT '{}',
      -- Keyed by what consumers read by: a tenant's events in sequence. The one index of a table
      -- every write inserts into (the id, a v7 UUID, is unique as made; nothing looks it up).
      PRIMARY KEY (tenant_id, seq)
    )
  `.execute(db);
  await distributeByTenant(db, 'events');

  await sql`
    CREATE TABLE jobs (
      tenant_id uuid NOT NULL,
      id uuid NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      instance_id uuid,
      kind text NOT NULL,
      payload jsonb NOT NULL DEFAULT '{}',
      state text NOT NULL,
      queue_key text,
      dedupe_key text,
      attempts integer NOT NULL DEFAULT 0,
      run_at timestamptz,
      locked_by text,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'jobs');
  // Workers take due jobs by this: QUEUED ones (a null run_at is due at once) and RUNNING ones
  // whose lease ran out, oldest first; a range scan that stops at now, so jobs scheduled later
  // cost nothing, and WAITING and DEAD jobs are not in it, however many there are.
  await sql`
    CREATE INDEX jobs_due_idx ON jobs ((coalesce(run_at, '-infinity'::timestamptz)), seq) WHERE state IN ('QUEUED', 'RUNNING')
  `.execute(db);
  await sql`
    CREATE INDEX jobs_key_idx ON jobs (tenant_id, queue_key, seq) WHERE queue_key IS NOT NULL AND state <> 'DEAD'
  `.execute(db);
  // The administrators' list, newest first, by state; a filter by kind alone reads the tenant's
  // part of it, which holds only live and DEAD jobs (a job that succeeded is deleted).
  await sql`CREATE INDEX jobs_state_idx ON jobs (tenant_id, state, seq)`.execute(db);
  await sql`CREATE UNIQUE INDEX jobs_dedupe_idx ON jobs (tenant_id, kind, dedupe_key) WHERE dedupe_key IS NOT NULL`.execute(db);

  // The next job of a key, once the one before it ended (succeeded or died). Called from the
  // statement that ends it: a VOLATILE function's query takes a fresh snapshot, so it sees a job
  // an enqueuer committed while that statement waited for the enqueuer's lock (queue.ts).
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

  await sql`
    INSERT INTO jobs (tenant_id, id, kind, payload, state)
    SELECT tenant_id, gen_random_uuid(), 'files.remove', jsonb_build_object('storageKey', storage_key), 'QUEUED'
    FROM file_removals
  `.execute(db);
  await sql`DROP TABLE file_removals`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE file_removals (
      tenant_id uuid NOT NULL,
      storage_key text NOT NULL,
      queued_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, storage_key)
    )
  `.execute(db);
  await distributeByTenant(db, 'file_removals');
  await sql`CREATE INDEX file_removals_queued_idx ON file_removals (queued_at)`.execute(db);

  await sql`DROP TABLE jobs`.execute(db);
  await sql`DROP TABLE events`.execute(db);
  await sql`DROP FUNCTION cairn_promote_next(uuid, text, uuid, timestamptz)`.execute(db);
}
