import { type Kysely, sql } from 'kysely';

/**
 * The access log's key becomes its order, (tenant, time, id): every read of the log, the chain and
 * the export walk it in that order, so the time index it replaces was a second copy of it, and each
 * record written now makes one index entry fewer. "Everyone who saw patient P" joins
 * access_log_patients to it on (time, id).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE access_log DROP CONSTRAINT access_log_pkey`.execute(db);
  await sql`ALTER TABLE access_log ADD PRIMARY KEY (tenant_id, occurred_at, id)`.execute(db);
  await sql`DROP INDEX access_log_time_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX access_log_time_idx ON access_log (tenant_id, occurred_at DESC, id DESC)`.execute(db);
  await sql`ALTER TABLE access_log DROP CONSTRAINT access_log_pkey`.execute(db);
  await sql`ALTER TABLE access_log ADD PRIMARY KEY (tenant_id, id)`.execute(db);
}
