import { type Kysely, sql } from 'kysely';
import { distributeByTenant } from '../distribution.ts';

/**
 * The calendar (002 "Calendar"): care-team members' work hours and calendar events with their
 * participants.
 *
 * An event list asks for the events overlapping a range: `start_at < to AND end_at > from`. A
 * B-tree bounds only one side of that, so events are split by length: an event of at most a day
 * starts after `from - 1 day`, which bounds the start index on both sides; the few longer ones
 * (`long`: leave, multi-day blocks) are found through partial indexes on their end. A member's
 * events (as host or participant) are read through indexes that lead with the member, so one
 * member's week never scans another's events.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE calendar_events (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      host_id uuid NOT NULL,
      start_at timestamptz NOT NULL,
      end_at timestamptz NOT NULL,
      long boolean GENERATED ALWAYS AS (end_at - start_at > interval '1 day') STORED,
      all_day boolean NOT NULL DEFAULT false,
      duration integer,
      title text,
      description text,
      event_type text,
      event_status text,
      event_mode text,
      event_color text,
      timezone text,
      additional_info jsonb,
      external_id text,
      external_id_updated_at timestamptz,
      scheduler_appointment_id integer,
      external_calendar_event_id text,
      external_event_metadata jsonb,
      -- The encounter built on this event (encounters area), if any.
      encounter_id uuid,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'calendar_events');
  await sql`CREATE INDEX calendar_events_start_idx ON calendar_events (tenant_id, instance_id, start_at, id)`.execute(db);
  await sql`CREATE INDEX calendar_events_long_idx ON calendar_events (tenant_id, instance_id, end_at) WHERE long`.execute(db);
  await sql`CREATE INDEX calendar_events_host_idx ON calendar_events (tenant_id, instance_id, host_id, start_at)`.execute(db);
  await sql`
    CREATE INDEX calendar_events_host_long_idx ON calendar_events (tenant_id, instance_id, host_id, end_at) WHERE long
  `.execute(db);
  await sql`
    CREATE INDEX calendar_events_encounter_idx ON calendar_events (tenant_id, encounter_id) WHERE encounter_id IS NOT NULL
  `.execute(db);

  await sql`
    CREATE TABLE calendar_event_participants (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      event_id uuid NOT NULL,
      -- Its place in the event's list, as the client sent it.
      position integer NOT NULL,
      participant_id uuid NOT NULL,
      participant_role text NOT NULL,
      participation_status text,
      attended boolean,
      -- The event's times, kept in step with it, so a member's events are found by one index.
      start_at timestamptz NOT NULL,
      end_at timestamptz NOT NULL,
      long boolean GENERATED ALWAYS AS (end_at - start_at > interval '1 day') STORED,
      PRIMARY KEY (tenant_id, id),
      FOREIGN KEY (tenant_id, event_id) REFERENCES calendar_events (tenant_id, id) ON DELETE CASCADE
    )
  `.execute(db);
  await distributeByTenant(db, 'calendar_event_participants');
  await sql`
    CREATE INDEX calendar_event_participants_event_idx ON calendar_event_participants (tenant_id, event_id, position)
  `.execute(db);
  await sql`
    CREATE INDEX calendar_event_participants_member_idx
      ON calendar_event_participants (tenant_id, instance_id, participant_id, start_at)
  `.execute(db);
  await sql`
    CREATE INDEX calendar_event_participants_member_long_idx
      ON calendar_event_participants (tenant_id, instance_id, participant_id, end_at) WHERE long
  `.execute(db);

  await sql`
    CREATE TABLE work_hours (
      tenant_id uuid NOT NULL,
      instance_id uuid NOT NULL,
      id uuid NOT NULL,
      psm_id uuid NOT NULL,
      name text,
      type text NOT NULL,
      rule_type text NOT NULL,
      start_at timestamptz NOT NULL,
      -- An open-ended rule ends 50 years after its start, as production writes it.
      end_at timestamptz NOT NULL,
      -- [{daysInfoId, day, startTime, endTime}]: day 1 is Monday, times HH:MM:SS in the member's zone.
      days_info jsonb NOT NULL,
      encounters text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      created_by uuid,
      created_by_name text,
      updated_by uuid,
      updated_by_name text,
      PRIMARY KEY (tenant_id, id)
    )
  `.execute(db);
  await distributeByTenant(db, 'work_hours');
  await sql`CREATE INDEX work_hours_psm_idx ON work_hours (tenant_id, instance_id, psm_id, start_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE work_hours`.execute(db);
  await sql`DROP TABLE calendar_event_participants`.execute(db);
  await sql`DROP TABLE calendar_events`.execute(db);
}
