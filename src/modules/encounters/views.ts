import type { Context } from '../../http/context.ts';
import { type CdtRecordView, cdtRecordView } from '../../records/cdt-view.ts';
import type { CdtRecordRow } from '../../records/store.ts';
import { localDateTime } from '../../wire/local-time.ts';
import { uuidPattern } from '../../wire/schemas.ts';
import { type CalendarEventView, type EventRow, eventsAmong, eventViews, zoneFor, zonesOf } from '../calendar/index.ts';
import { encounterFieldNames } from './types.ts';

/**
 * Encounter records as the API shows them (PROD-SHAPES "Encounter"): the stored values, and what
 * comes from the appointment and the people named (times in UTC and in the caller's zone, the
 * event itself, owner and active user names, the patient). Loaded for a whole page at once: one
 * statement per kind, never one per encounter.
 */

/** PROD-SHAPES: what the user and instance lists carry in jsonBody (and cdtId, version, cdtName null). */
const listKeys = [
  'type',
  'notes',
  'title',
  'status',
  'description',
  'endDatetime',
  'instruction',
  'ownerUserId',
  'activeUserId',
  'templateName',
  'calendarEvent',
  'dispositionId',
  'ownerUserName',
  'startDatetime',
  'templateTitle',
  'activeUserName',
  'calendarEventId',
  'calendarEventStartDatetime',
  'currentScheduledAppointment',
  'localStartDatetime',
  'localEndDatetime',
  'local_created_at',
  'local_updated_at',
  'localCalendarEventStartDatetime',
  'patientInfo',
];

/** A CDT record, or (user and instance lists) one without its type ids. */
export interface EncounterView extends Omit<CdtRecordView, 'cdtId' | 'cdtName'> {
  cdtId: string | null;
  cdtName: string | null;
}

export interface EncounterPage {
  views: EncounterView[];
  /** Each encounter's appointment, by encounter id (full encounters show it). */
  events: Map<string, { row: EventRow; view: CalendarEventView }>;
}

const text = (value: unknown) => (typeof value === 'string' ? value : null);
/** An id stored in values, when it is one (a value written by hand must not break a uuid query). */
const idOf = (value: unknown) => (typeof value === 'string' && uuidPattern.test(value) ? value.toLowerCase() : null);

/** What an encounter page shows beside its records: appointments, people's names, patients, hosts' zones. */
export interface EncounterRelated {
  /** Each appointment with its view, by event id. */
  events: Map<string, { row: EventRow; view: CalendarEventView }>;
  /** Owners' and active users' names, by user id. */
  names: Map<string, string | null>;
  /** The patients' names (the user and instance lists show them). */
  patients: Map<string, { first_name: string | null; last_name: string | null }>;
  /** Hosts' zones, by user id (zonesOf: none for a user caller). */
  zones: Map<string, string | null>;
}

/** A user's name as the lists show it: first and last, or null. */
export const nameOf = (user: { first_name: string | null; last_name: string | null }) =>
  [user.first_name, user.last_name].filter(Boolean).join(' ') || null;

export async function encounterViews(
  ctx: Context,
  rows: CdtRecordRow[],
  options: { list?: boolean } = {},
): Promise<EncounterPage> {
  if (rows.length === 0) return { views: [], events: new Map() };
  return encounterPage(ctx, rows, await relatedOf(ctx, rows, options), options);
}

/** What the page shows beside its records, loaded for the whole page: one statement per kind. */
async function relatedOf(ctx: Context, rows: CdtRecordRow[], options: { list?: boolean }): Promise<EncounterRelated> {
  const valuesOf = (row: CdtRecordRow) => row.values as Record<string, unknown>;
  const eventIds = [...new Set(rows.flatMap((row) => text(valuesOf(row).calendarEventId) ?? []))];
  const userIds = [
    ...new Set(
      rows.flatMap((row) => [text(valuesOf(row).ownerUserId), text(valuesOf(row).activeUserId)].filter((id) => id !== null)),
    ),
  ];
  const patientIds = [...new Set(rows.map((row) => row.patient_id))];
  const [events, users, patients] = await Promise.all([
    eventsAmong(ctx.db, ctx.scope, eventIds),
    userIds.length > 0
      ? ctx.db
          .selectFrom('users')
          .select(['id', 'first_name', 'last_name'])
          .where('tenant_id', '=', ctx.scope.tenantId)
          .where('id', 'in', userIds)
          .execute()
      : Promise.resolve([]),
    options.list
      ? ctx.db
          .selectFrom('patients')
          .select(['id', 'first_name', 'last_name'])
          .where('tenant_id', '=', ctx.scope.tenantId)
          .where('instance_id', '=', ctx.scope.instanceId)
          .where('id', 'in', patientIds)
          .execute()
      : Promise.resolve([]),
  ]);
  const [views, zones] = await Promise.all([
    eventViews(ctx, events),
    zonesOf(
      ctx,
      undefined,
      events.map((event) => event.host_id),
    ),
  ]);
  return {
    events: new Map(events.map((event, index) => [event.id, { row: event, view: views[index] as CalendarEventView }])),
    names: new Map(users.map((user) => [user.id, nameOf(user)])),
    patients: new Map(patients.map((patient) => [patient.id, patient])),
    zones,
  };
}

/** The page's views from its records and what they show: no query here. */
export function encounterPage(
  ctx: Context,
  rows: CdtRecordRow[],
  related: EncounterRelated,
  options: { list?: boolean } = {},
): EncounterPage {
  const valuesOf = (row: CdtRecordRow) => row.values as Record<string, unknown>;
  const { events: eventById, names, patients: patientById, zones } = related;
  const byEncounter = new Map<string, { row: EventRow; view: CalendarEventView }>();
  const out = rows.map((row): EncounterView => {
    const values = valuesOf(row);
    const event = eventById.get(idOf(values.calendarEventId) ?? '');
    if (event) byEncounter.set(row.id, event);
    const zone = zoneFor(ctx, undefined, event ? (zones.get(event.row.host_id) ?? event.row.timezone) : text(values.timezone));
    const local = (instant: Date | undefined) => (instant ? localDateTime(instant, zone) : null);
    const view = cdtRecordView(row, encounterFieldNames);
    const patient = patientById.get(row.patient_id);
    const derived: Record<string, unknown> = {
      startDatetime: event?.row.start_at.toISOString() ?? null,
      endDatetime: event?.row.end_at.toISOString() ?? null,
      localStartDatetime: local(event?.row.start_at),
      localEndDatetime: local(event?.row.end_at),
      calendarEventStartDatetime: event?.row.start_at.toISOString() ?? null,
      localCalendarEventStartDatetime: local(event?.row.start_at),
      calendarEvent: event?.view ?? null,
      currentScheduledAppointment: event?.view ?? null,
      ownerUserName: names.get(idOf(values.ownerUserId) ?? '') ?? null,
      activeUserName: names.get(idOf(values.activeUserId) ?? '') ?? null,
      local_created_at: localDateTime(row.created_at, zone),
      local_updated_at: localDateTime(row.updated_at, zone),
      ...(options.list
        ? {
            patientInfo: {
              patientId: row.patient_id,
              firstName: patient?.first_name ?? null,
              lastName: patient?.last_name ?? null,
            },
          }
        : {}),
    };
    const jsonBody = { ...view.jsonBody, ...derived };
    if (!options.list) {
      // 002 names them startDateTime/endDateTime (and local…); production's jsonBody writes `Datetime`: both.
      Object.assign(jsonBody, {
        startDateTime: derived.startDatetime,
        endDateTime: derived.endDatetime,
        localStartDateTime: derived.localStartDatetime,
        localEndDateTime: derived.localEndDatetime,
      });
      return { ...view, jsonBody };
    }
    // PROD-SHAPES: user and instance list items carry fewer keys, and no type ids.
    return {
      id: row.id,
      patientId: row.patient_id,
      cdtId: null,
      version: null,
      jsonBody: Object.fromEntries(listKeys.map((key) => [key, jsonBody[key] ?? null])),
      cdtName: null,
    };
  });
  return { views: out, events: byEncounter };
}
