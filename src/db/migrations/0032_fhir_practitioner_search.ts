import { type Kysely, sql } from 'kysely';

/** FHIR's Practitioner search matches the start of a name part in any case: `lower(name) LIKE 'smi%'` (as 0030 for patients). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX users_last_name_pattern_idx ON users (tenant_id, lower(last_name) text_pattern_ops)`.execute(db);
  await sql`CREATE INDEX users_first_name_pattern_idx ON users (tenant_id, lower(first_name) text_pattern_ops)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX users_first_name_pattern_idx`.execute(db);
  await sql`DROP INDEX users_last_name_pattern_idx`.execute(db);
}
