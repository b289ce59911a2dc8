import { type Kysely, sql } from 'kysely';

/**
 * FHIR's string search matches the start of a name part, in any case (`family=smi` finds Smith):
 * `lower(name) LIKE 'smi%'`, which these serve (text_pattern_ops, so whatever the collation).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX patients_last_name_lower_idx ON patients (tenant_id, instance_id, lower(last_name) text_pattern_ops)
  `.execute(db);
  await sql`
    CREATE INDEX patients_first_name_lower_idx ON patients (tenant_id, instance_id, lower(first_name) text_pattern_ops)
  `.execute(db);
  await sql`
    CREATE INDEX patients_middle_name_lower_idx ON patients (tenant_id, instance_id, lower(middle_name) text_pattern_ops)
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX patients_middle_name_lower_idx`.execute(db);
  await sql`DROP INDEX patients_first_name_lower_idx`.execute(db);
  await sql`DROP INDEX patients_last_name_lower_idx`.execute(db);
}
