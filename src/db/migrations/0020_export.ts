import { type Kysely, sql } from 'kysely';

/**
 * The bulk export (002 "Export"): each resource is read in pages by (update time, id) within a
 * tenant's instance, so each gets an index that starts with tenant, instance and the update time
 * (partial where one table holds several resources). Chat messages never change: their creation
 * is their last update. Care plans learn their instance, which their patient already had.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE care_plans ADD COLUMN instance_id uuid`.execute(db);
  await sql`
    UPDATE care_plans c SET instance_id = p.instance_id FROM patients p WHERE p.tenant_id = c.tenant_id AND p.id = c.patient_id
  `.execute(db);
  await sql`ALTER TABLE care_plans ALTER COLUMN instance_id SET NOT NULL`.execute(db);
  await sql`CREATE INDEX care_plans_export_idx ON care_plans (tenant_id, instance_id, updated_at, id)`.execute(db);

  await sql`
    CREATE INDEX assessment_records_export_idx ON assessment_records (tenant_id, instance_id, updated_at, id) WHERE NOT pfa
  `.execute(db);
  await sql`
    CREATE INDEX assessment_records_pfa_export_idx ON assessment_records (tenant_id, instance_id, updated_at, id) WHERE pfa
  `.execute(db);
  await sql`CREATE INDEX calendar_events_export_idx ON calendar_events (tenant_id, instance_id, updated_at, id)`.execute(db);
  await sql`
    CREATE INDEX cdt_records_export_idx ON cdt_records (tenant_id, instance_id, updated_at, id) WHERE left(cdt_name, 1) <> '_'
  `.execute(db);
  await sql`
    CREATE INDEX cdt_records_dispositions_export_idx ON cdt_records (tenant_id, instance_id, updated_at, id)
      WHERE cdt_name = '__encounter_disposition__'
  `.execute(db);
  await sql`CREATE INDEX chat_messages_export_idx ON chat_messages (tenant_id, instance_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX emails_export_idx ON emails (tenant_id, instance_id, updated_at, id)`.execute(db);
  await sql`
    CREATE INDEX encounter_comments_export_idx ON encounter_comments (tenant_id, instance_id, updated_at, id)
  `.execute(db);
  await sql`CREATE INDEX sms_messages_export_idx ON sms_messages (tenant_id, instance_id, updated_at, id)`.execute(db);
  await sql`CREATE INDEX voice_calls_export_idx ON voice_calls (tenant_id, instance_id, updated_at, id)`.execute(db);
  await sql`CREATE INDEX pdt_records_export_idx ON pdt_records (tenant_id, instance_id, updated_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX care_plans_export_idx`.execute(db);
  await sql`DROP INDEX assessment_records_export_idx`.execute(db);
  await sql`DROP INDEX assessment_records_pfa_export_idx`.execute(db);
  await sql`DROP INDEX calendar_events_export_idx`.execute(db);
  await sql`DROP INDEX cdt_records_export_idx`.execute(db);
  await sql`DROP INDEX cdt_records_dispositions_export_idx`.execute(db);
  await sql`DROP INDEX chat_messages_export_idx`.execute(db);
  await sql`DROP INDEX emails_export_idx`.execute(db);
  await sql`DROP INDEX encounter_comments_export_idx`.execute(db);
  await sql`DROP INDEX sms_messages_export_idx`.execute(db);
  await sql`DROP INDEX voice_calls_export_idx`.execute(db);
  await sql`DROP INDEX pdt_records_export_idx`.execute(db);
  await sql`ALTER TABLE care_plans DROP COLUMN instance_id`.execute(db);
}
