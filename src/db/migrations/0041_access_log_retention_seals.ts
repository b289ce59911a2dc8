import { type Kysely, sql } from 'kysely';

/**
 * The access log's chain hardened (modules/access-log/chain.ts, DECISIONS "Access log"):
 * - `format`: 1 for seals hashed before this migration (times in milliseconds, the columns of
 *   then), 2 for those after (each column as stored, microseconds included).
 * - `kind`: RECORDS, or RETENTION for a removal, which is a seal of its own in the chain: `removal`
 *   says which seal it removed through, how many records, with which retention, and its hash
 *   covers that, so only a removal the chain records is a valid one.
 * - `cairn_access_log_remove`: the only way to remove records or seals. It runs with its owner's
 *   rights (the role that migrates), so the role Cairn serves with needs no UPDATE or DELETE on the
 *   log (`cairn database grant`), and it removes only through a seal older than the retention it
 *   is given, writing the retention seal after the newest seal, and the removal's own access
 *   record, in the same statement. It is called alone in its transaction: on Citus a transaction
 *   may not reach a shard as two roles (the caller's and the function's owner's).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE access_log_seals ADD COLUMN format smallint NOT NULL DEFAULT 1`.execute(db);
  await sql`ALTER TABLE access_log_seals ADD COLUMN kind text NOT NULL DEFAULT 'RECORDS'`.execute(db);
  await sql`ALTER TABLE access_log_seals ADD COLUMN removal jsonb`.execute(db);
  await sql`
    CREATE FUNCTION cairn_access_log_remove(
      tenant uuid, anchor bigint, seal_seq bigint, previous text, seal_hash text, removal jsonb, at timestamptz,
      record jsonb
    ) RETURNS integer LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path FROM CURRENT AS $$
    DECLARE
      entry access_log := jsonb_populate_record(NULL::access_log, record);
      newest access_log_seals;
      target access_log_seals;
      removed integer;
    BEGIN
      SELECT * INTO newest FROM access_log_seals WHERE tenant_id = tenant ORDER BY seq DESC LIMIT 1 FOR UPDATE;
      IF NOT FOUND OR newest.seq + 1 <> seal_seq OR newest.hash <> previous THEN
        RAISE EXCEPTION 'a retention seal follows the newest seal' USING ERRCODE = '40001';
      END IF;
      SELECT * INTO target FROM access_log_seals
      WHERE tenant_id = tenant AND seq = anchor AND kind = 'RECORDS' AND removed_at IS NULL;
      IF NOT FOUND OR (removal ->> 'anchor')::bigint <> anchor
        OR target.through_at >= at - make_interval(days => (removal ->> 'retentionDays')::integer) THEN
        RAISE EXCEPTION 'only a seal older than the retention is removed' USING ERRCODE = '22023';
      END IF;
      DELETE FROM access_log
      WHERE tenant_id = tenant AND (occurred_at, id) <= (target.through_at, target.through_id);
      GET DIAGNOSTICS removed = ROW_COUNT;
      UPDATE access_log_seals SET removed_at = at WHERE tenant_id = tenant AND seq = anchor;
      DELETE FROM access_log_seals WHERE tenant_id = tenant AND seq < anchor;
      INSERT INTO access_log_seals
        (tenant_id, seq, through_at, through_id, records, previous_hash, hash, sealed_at, format, kind, removal)
      VALUES (tenant, seal_seq, newest.through_at, newest.through_id, 0, previous, seal_hash, at, 2, 'RETENTION', removal);
      IF entry.tenant_id <> tenant THEN
        RAISE EXCEPTION 'the removal is recorded in its own tenant' USING ERRCODE = '22023';
      END IF;
      INSERT INTO access_log VALUES (entry.*);
      RETURN removed;
    END $$
  `.execute(db);
  await sql`
    REVOKE ALL ON FUNCTION cairn_access_log_remove(uuid, bigint, bigint, text, text, jsonb, timestamptz, jsonb) FROM PUBLIC
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION cairn_access_log_remove(uuid, bigint, bigint, text, text, jsonb, timestamptz, jsonb)`.execute(db);
  await sql`ALTER TABLE access_log_seals DROP COLUMN removal`.execute(db);
  await sql`ALTER TABLE access_log_seals DROP COLUMN kind`.execute(db);
  await sql`ALTER TABLE access_log_seals DROP COLUMN format`.execute(db);
}
