import { type Kysely, sql } from 'kysely';

/**
 * FHIR's Encounter search (modules/encounters/fhir.ts): pages in id order over the encounter
 * records alone, by status and by type (the template), each a partial index on the encounter
 * records as 0012's are (the queries repeat its predicate as a literal); and `date`, the start of
 * the encounter's appointment, read from the calendar events that belong to an encounter. The
 * patient is served by 0003's CDT patient index, `_lastUpdated` by 0012's updated index.
 * CareTeam needs none: it reads patients by id and the care team by its key (tenant, patient).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE INDEX cdt_records_encounters_id_idx ON cdt_records (tenant_id, instance_id, id)
      WHERE cdt_name = '__encounter__'
  `.execute(db);
  await sql`
    CREATE INDEX cdt_records_encounters_status_idx ON cdt_records (tenant_id, instance_id, (values ->> 'status'), id)
      WHERE cdt_name = '__encounter__'
  `.execute(db);
  await sql`
    CREATE INDEX cdt_records_encounters_type_idx ON cdt_records (tenant_id, instance_id, (values ->> 'type'), id)
      WHERE cdt_name = '__encounter__'
  `.execute(db);
  await sql`
    CREATE INDEX calendar_events_encounter_start_idx ON calendar_events (tenant_id, start_at, encounter_id)
      WHERE encounter_id IS NOT NULL
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX calendar_events_encounter_start_idx`.execute(db);
  await sql`DROP INDEX cdt_records_encounters_type_idx`.execute(db);
  await sql`DROP INDEX cdt_records_encounters_status_idx`.execute(db);
  await sql`DROP INDEX cdt_records_encounters_id_idx`.execute(db);
}
