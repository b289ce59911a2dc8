import { sql } from 'kysely';
import type { Context } from '../../http/context.ts';
import { knownZone, localDateTime } from '../../wire/local-time.ts';
import type { PageColumns } from './events-page.ts';
import type { CalendarEventView, WorkHoursView } from './schemas.ts';
import {
  type EncounterRecord,
  type EventRow,
  type ParticipantRow,
  participantsOf,
  usersAmong,
  type WorkHoursRow,
} from './store.ts';

/** Calendar rows → API objects, loaded in batches: one statement per kind for a whole page. */

/**
 * The zone of `local…` fields (000, "the caller kind matters"): `viewerTimezone` when given; a user
 * caller's own zone; for an API client, the host's (a member's, for work hours); UTC otherwise.
 */
export function zoneFor(ctx: Context, viewerTimezone: string | undefined, hostZone: string | null | undefined): string {
  if (viewerTimezone) return viewerTimezone;
  if (ctx.caller?.type === 'USER') return ctx.timezone;
  return knownZone(hostZone);
}

/** Whether local fields are in each host's (member's) zone, which must then be read (zoneFor). */
export function inHostZones(ctx: Context, viewerTimezone: string | undefined): boolean {
  return !viewerTimezone && ctx.caller?.type !== 'USER';
}

/** The members' (hosts') zones, for API-client callers; none is read for a user or a given zone. */
export async function zonesOf(
  ctx: Context,
  viewerTimezone: string | undefined,
  memberIds: string[],
): Promise<Map<string, string | null>> {
  if (!inHostZones(ctx, viewerTimezone)) return new Map();
  const users = await usersAmong(ctx.db, ctx.scope.tenantId, [...new Set(memberIds)]);
  return new Map(users.map((user) => [user.id, user.timezone]));
}

export interface EventViewOptions {
  viewerTimezone?: string | undefined;
  includeEncounterInfo?: boolean;
}

export async function eventViews(ctx: Context, rows: EventRow[], options: EventViewOptions = {}): Promise<CalendarEventView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [participants, zones, encounters] = await Promise.all([
    participantsOf(ctx.db, ctx.scope.tenantId, ids),
    zonesOf(
      ctx,
      options.viewerTimezone,
      rows.map((row) => row.host_id),
    ),
    options.includeEncounterInfo ? encounterInfoOf(ctx, rows) : Promise.resolve(new Map<string, EncounterInfoView>()),
  ]);
  const byEvent = new Map<string, ParticipantRow[]>();
  for (const participant of participants) {
    const list = byEvent.get(participant.event_id);
    if (list) list.push(participant);
    else byEvent.set(participant.event_id, [participant]);
  }
  return rows.map((row) =>
    shownEvent(ctx, row, options, {
      participants: byEvent.get(row.id) ?? [],
      hostZone: zones.get(row.host_id),
      encounter: row.encounter_id ? encounters.get(row.encounter_id) : undefined,
    }),
  );
}

/** A page's events, with what its statement composed beside each (events-page.ts): no statement of their own. */
export function pageViews(ctx: Context, rows: (EventRow & PageColumns)[], options: EventViewOptions): CalendarEventView[] {
  return rows.map((row) =>
    shownEvent(ctx, row, options, {
      participants: row.cairn_participants,
      hostZone: row.cairn_host_zone,
      encounter: row.cairn_encounter ? encounterInfoView(row.cairn_encounter) : undefined,
    }),
  );
}

/** An event as shown, from what was read beside it: its participants, its host's zone, its encounter. */
function shownEvent(
  ctx: Context,
  row: EventRow,
  options: EventViewOptions,
  beside: { participants: ParticipantRow[]; hostZone: string | null | undefined; encounter: EncounterInfoView | undefined },
): CalendarEventView {
  const zone = zoneFor(ctx, options.viewerTimezone, beside.hostZone ?? row.timezone);
  const view = eventView(row, beside.participants, zone);
  if (options.includeEncounterInfo) view.encounterInfo = (row.encounter_id && beside.encounter) || null;
  return view;
}

export function eventView(row: EventRow, participants: ParticipantRow[], zone: string): CalendarEventView {
  return {
    id: row.id,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at,
    externalId: row.external_id,
    externalIdUpdatedAt: row.external_id_updated_at,
    eventTitle: row.title,
    eventDescription: row.description,
    startDateTime: row.start_at,
    localStartDateTime: localDateTime(row.start_at, zone),
    endDateTime: row.end_at,
    localEndDateTime: localDateTime(row.end_at, zone),
    allDayEvent: row.all_day,
    duration: row.duration,
    eventType: row.event_type,
    eventStatus: row.event_status,
    eventMode: row.event_mode,
    eventColor: row.event_color,
    hostId: row.host_id,
    timezone: row.timezone,
    additionalInfo: row.additional_info,
    schedulerAppointmentId: row.scheduler_appointment_id,
    externalCalendarEventId: row.external_calendar_event_id,
    externalEventMetadata: row.external_event_metadata,
    participants: participants.map((participant) => ({
      id: participant.id,
      participantId: participant.participant_id,
      participantRole: participant.participant_role,
      participationStatus: participant.participation_status,
      attended: participant.attended,
      timezone: participant.timezone,
      firstName: participant.first_name,
      lastName: participant.last_name,
      deleted: !participant.found,
      hasAccess: true,
      hiddenPhi: false,
      email: participant.email,
      phone: participant.phone,
      gender: participant.gender,
      birthDate: participant.birth_date ? `${participant.birth_date}T00:00:00.000Z` : null,
      enabled: participant.enabled ?? false,
    })),
  };
}

type EncounterInfoView = NonNullable<CalendarEventView['encounterInfo']>;

/**
 * The encounters built on these events (002 "Encounter info"), read from their records in one
 * statement. The encounters area builds on the calendar, not the other way round, so this reads
 * the `__encounter__` records' stored values by name rather than through that area.
 */
async function encounterInfoOf(ctx: Context, rows: EventRow[]): Promise<Map<string, EncounterInfoView>> {
  const ids = rows.flatMap((row) => (row.encounter_id ? [row.encounter_id] : []));
  if (ids.length === 0) return new Map();
  const { rows: records } = await sql<EncounterRecord>`
    SELECT id, patient_id, values FROM cdt_records
    WHERE tenant_id = ${ctx.scope.tenantId} AND instance_id = ${ctx.scope.instanceId}
      AND cdt_name = '__encounter__' AND id = ANY(${ids}::uuid[])`.execute(ctx.db);
  return new Map(records.map((record) => [record.id, encounterInfoView(record)]));
}

/** An `__encounter__` record as its event's `encounterInfo` shows it. */
function encounterInfoView(record: EncounterRecord): EncounterInfoView {
  const values = record.values;
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const cents = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : null);
  const services = Array.isArray(values.visitServices) ? (values.visitServices as Record<string, unknown>[]) : [];
  return {
    encounterId: record.id,
    dispositionId: text(values.dispositionId),
    templateName: text(values.templateName),
    templateTitle: text(values.templateTitle),
    patientId: record.patient_id,
    title: text(values.title),
    description: text(values.description),
    notes: text(values.notes),
    type: text(values.type),
    status: text(values.status),
    serviceCost: cents(values.serviceCost),
    preVisitCost: cents(values.preVisitCost),
    visitServices: services,
    location: text(values.location),
  };
}

export function workHoursView(row: WorkHoursRow, zone: string): WorkHoursView {
  return {
    workHoursId: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    name: row.name,
    type: row.type,
    ruleType: row.rule_type,
    startDateTime: row.start_at,
    endDateTime: row.end_at,
    localStartDateTime: localDateTime(row.start_at, zone),
    localEndDateTime: localDateTime(row.end_at, zone),
    daysInfo: row.days_info,
    // PROD-SHAPES: `encounters` is on AVAILABILITY entries only.
    ...(row.type === 'AVAILABILITY' ? { encounters: row.encounters } : {}),
  };
}

/** An event's patients (for the access log): its participants in the `patient` role, as a view shows them. */
export const eventPatients = (event: unknown) =>
  ((event as { participants?: { participantId: string; participantRole: string }[] })?.participants ?? [])
    .filter((participant) => participant.participantRole === 'patient')
    .map((participant) => participant.participantId);
