import type { GeneratedAlways } from 'kysely';
import type { Authorship, Json, Timestamp } from '../../db/schema.ts';

/** The calendar area's tables (migration 0011), merged into the database's `DB` type. */

export interface CalendarEventsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  host_id: string;
  start_at: Timestamp;
  end_at: Timestamp;
  long: GeneratedAlways<boolean>;
  all_day: boolean;
  duration: number | null;
  title: string | null;
  description: string | null;
  event_type: string | null;
  event_status: string | null;
  event_mode: string | null;
  event_color: string | null;
  timezone: string | null;
  additional_info: Json<Record<string, unknown>> | null;
  external_id: string | null;
  external_id_updated_at: Timestamp | null;
  scheduler_appointment_id: number | null;
  external_calendar_event_id: string | null;
  external_event_metadata: Json<Record<string, unknown>> | null;
  encounter_id: string | null;
}

export interface CalendarEventParticipantsTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  event_id: string;
  position: number;
  participant_id: string;
  participant_role: string;
  participation_status: string | null;
  attended: boolean | null;
  start_at: Timestamp;
  end_at: Timestamp;
  long: GeneratedAlways<boolean>;
}

/** One weekday's hours of a rule. */
export interface DayInfo {
  daysInfoId: string;
  day: number;
  startTime: string;
  endTime: string;
}

export interface WorkHoursTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  psm_id: string;
  name: string | null;
  type: string;
  rule_type: string;
  start_at: Timestamp;
  end_at: Timestamp;
  days_info: Json<DayInfo[]>;
  encounters: string[];
}

/**
 * A place the calendar's in-person appointments are at (migration 0053): one per instance and text
 * (any case), kept by the encounters' writes, served as FHIR's Location.
 */
export interface PlacesTable {
  tenant_id: string;
  instance_id: string;
  /** md5 of tenant, instance and the lower-cased text (`placeId`). */
  id: string;
  /** The text as first written. */
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../db/schema.ts' {
  interface DB {
    places: PlacesTable;
    calendar_events: CalendarEventsTable;
    calendar_event_participants: CalendarEventParticipantsTable;
    work_hours: WorkHoursTable;
  }
}
