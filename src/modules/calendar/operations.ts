import { uuidv7 } from '../../db/ids.ts';
import type { Work } from '../../events/work.ts';
import type { Context } from '../../http/context.ts';
import type { Paging } from '../../http/pagination.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { knownZone } from '../../wire/local-time.ts';
import { EARLIEST, LATEST, readInstant } from '../../wire/schemas.ts';
import { instantAt, localDay, nextDay } from '../../wire/wall-clock.ts';
import { write } from '../../work/write.ts';
import { type PageColumns, pageExtras } from './events-page.ts';
import type { CalendarEventView, EventInputBody, EventPatchBody } from './schemas.ts';
import {
  type EventFilter,
  type EventRow,
  findEvent,
  listEvents,
  moveParticipants,
  type NewParticipant,
  patientParticipantsOf,
  patientsAmong,
  replaceParticipants,
  usersAmong,
} from './store.ts';
import { eventViews, inHostZones, pageViews } from './views.ts';

/** Calendar events: list, read, create, replace, change, delete (002 "Calendar", DECISIONS §7). */

/** An event lasts at most this long; a longer block of time is several events. */
const MAX_EVENT_DAYS = 366;
/** A list covers at most this range: a year of a whole instance's calendar is already more than a page can show. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 24 * 60 * 60_000;

/** `from` and `to` of a list: both required, `to` after `from`, at most MAX_RANGE_DAYS apart (400 otherwise). */
export function rangeOf(query: { from: string | Date; to: string | Date }): { from: Date; to: Date } {
  const from = readInstant(query.from);
  const to = readInstant(query.to);
  if (to.getTime() <= from.getTime()) throw validationError([{ path: 'querystring.to', message: 'must be after from' }]);
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
    throw validationError([{ path: 'querystring.to', message: `must be at most ${MAX_RANGE_DAYS} days after from` }]);
  return { from, to };
}

export interface EventListOptions extends EventFilter {
  viewerTimezone?: string | undefined;
  includeEncounterInfo: boolean;
}

/** A page of events and everything it shows, with the request's access record: one statement (events-page.ts). */
export async function listCalendarEvents(ctx: Context, options: EventListOptions, paging: Paging, direction: 'asc' | 'desc') {
  const participantIds = options.participantIds?.map((id) => id.toLowerCase());
  const shows = { hostZones: inHostZones(ctx, options.viewerTimezone), encounterInfo: options.includeEncounterInfo };
  const filter = { ...options, participantIds };
  const { rows, total } = await listEvents<PageColumns>(ctx.db, ctx.scope, filter, paging, direction, pageExtras(ctx, shows));
  return { content: pageViews(ctx, rows, options), total };
}

export async function getCalendarEvent(ctx: Context, id: string, viewerTimezone?: string): Promise<CalendarEventView> {
  const row = await findEvent(ctx.db, ctx.scope, id);
  if (!row) throw new ApiError('CALENDAR_EVENT_NOT_FOUND', { id });
  const [view] = await eventViews(ctx, [row], { viewerTimezone, includeEncounterInfo: true });
  return view as CalendarEventView;
}

/** What an event's columns are after a write: the body's fields over the event's (PATCH) or over nothing (POST, PUT). */
type Fields = Partial<EventInputBody>;

interface Checked {
  columns: {
    host_id: string;
    start_at: Date;
    end_at: Date;
    all_day: boolean;
    duration: number | null;
    title: string | null;
    description: string | null;
    event_type: string | null;
    event_status: string | null;
    event_mode: string | null;
    event_color: string | null;
    timezone: string | null;
    additional_info: Record<string, unknown> | null;
    external_id: string | null;
    scheduler_appointment_id: number | null;
    external_calendar_event_id: string | null;
    external_event_metadata: Record<string, unknown> | null;
  };
  participants: NewParticipant[] | undefined;
  /** The first patient among the participants: the patient its events name. */
  patientId: string | null;
}

/** 002: an event without a colour is invisible, so one is always set: grey for leave, green otherwise. */
function defaultColor(eventType: string | null): string {
  return eventType?.toUpperCase() === 'LEAVE' ? 'grey' : 'green';
}

/**
 * An all-day event covers whole days of its zone: its start moves back to the midnight that begins
 * its day, its end on to the midnight that ends its last day (an end already at midnight stays).
 * Across a change of offset such a day lasts 23 or 25 hours (23.5 or 24.5 at Lord Howe).
 */
function wholeDays(start: Date, end: Date, zone: string): { start: Date; end: Date } {
  const first = instantAt(localDay(start, zone), '00:00:00', zone);
  const endDay = localDay(end, zone);
  const endMidnight = instantAt(endDay, '00:00:00', zone);
  let last = endMidnight.getTime() === end.getTime() ? endMidnight : instantAt(nextDay(endDay), '00:00:00', zone);
  if (last.getTime() <= first.getTime()) last = instantAt(nextDay(localDay(first, zone)), '00:00:00', zone);
  return { start: first, end: last };
}

/**
 * The checks of 002 and this API on an event's fields: times in order and of sane length, the host
 * a user of the tenant, each participant a patient of the instance (role `patient`) or a user.
 */
async function check(ctx: Context, fields: Fields, base: EventRow | undefined, db = ctx.db, path = 'body'): Promise<Checked> {
  const errors: FieldError[] = [];
  const hostId = (fields.hostId ?? base?.host_id ?? '').toLowerCase();
  // The host is checked when it is set: a change of status must not fail because the host has left since.
  const hostGiven = fields.hostId !== undefined || !base;
  const participants = fields.participants;
  const participantIds = (participants ?? []).map((p) => p.participantId.toLowerCase());
  const isPatient = (p: NewParticipant) => p.participantRole.toLowerCase() === 'patient';
  const [users, patients] = await Promise.all([
    usersAmong(db, ctx.scope.tenantId, [
      hostId,
      ...(participants ?? []).filter((p) => !isPatient(p)).map((p) => p.participantId.toLowerCase()),
    ]),
    patientsAmong(
      db,
      ctx.scope,
      (participants ?? []).filter(isPatient).map((p) => p.participantId.toLowerCase()),
    ),
  ]);
  const userZones = new Map(users.map((user) => [user.id, user.timezone]));
  if (hostGiven && !userZones.has(hostId)) errors.push({ path: `${path}.hostId`, message: `no user ${hostId} in this tenant` });
  for (const [index, participant] of (participants ?? []).entries()) {
    const id = participantIds[index] as string;
    const known = isPatient(participant) ? patients.has(id) : userZones.has(id);
    if (!known)
      errors.push({
        path: `${path}.participants.${index}.participantId`,
        message: isPatient(participant) ? `no patient ${id} in this instance` : `no user ${id} in this tenant`,
      });
  }
  const pick = <K extends keyof Fields, T>(key: K, current: T): Fields[K] | T => (key in fields ? fields[key] : current);
  const timezone = (pick('timezone', base?.timezone ?? null) as string | null) ?? null;
  const allDay = Boolean(pick('allDayEvent', base?.all_day ?? false));
  let start = fields.startDateTime !== undefined ? readInstant(fields.startDateTime) : (base?.start_at as Date);
  let end = fields.endDateTime !== undefined ? readInstant(fields.endDateTime) : (base?.end_at as Date);
  const timesChanged = fields.startDateTime !== undefined || fields.endDateTime !== undefined || 'allDayEvent' in fields;
  // Snapped when its times or all-day flag are set; a change of zone or host alone leaves them be.
  if (allDay && (timesChanged || !base)) ({ start, end } = wholeDays(start, end, knownZone(timezone ?? userZones.get(hostId))));
  // An all-day event's days, snapped to their zone's midnights, must stay within years 0001–9999.
  if (start.getTime() < EARLIEST)
    errors.push({ path: `${path}.startDateTime`, message: 'the whole day must begin in 0001 or later' });
  if (end.getTime() > LATEST) errors.push({ path: `${path}.endDateTime`, message: 'the whole day must end by 9999-12-31' });
  else if (end.getTime() <= start.getTime()) errors.push({ path: `${path}.endDateTime`, message: 'must be after startDateTime' });
  else if (end.getTime() - start.getTime() > MAX_EVENT_DAYS * DAY_MS)
    errors.push({ path: `${path}.endDateTime`, message: `an event lasts at most ${MAX_EVENT_DAYS} days` });
  if (errors.length > 0) throw validationError(errors);
  const given = fields.duration;
  const duration =
    given !== undefined && given !== null
      ? given
      : timesChanged || !base
        ? Math.round((end.getTime() - start.getTime()) / 1000)
        : base.duration;
  const eventType = (pick('eventType', base?.event_type ?? null) as string | null) ?? null;
  const text = (key: keyof Fields, current: string | null) => (pick(key, current) as string | null | undefined) ?? null;
  const firstPatient = (participants ?? []).find(isPatient);
  return {
    columns: {
      host_id: hostId,
      start_at: start,
      end_at: end,
      all_day: allDay,
      duration,
      title: text('eventTitle', base?.title ?? null),
      description: text('eventDescription', base?.description ?? null),
      event_type: eventType,
      event_status: text('eventStatus', base?.event_status ?? null),
      event_mode: text('eventMode', base?.event_mode ?? null),
      event_color: text('eventColor', base?.event_color ?? null) ?? defaultColor(eventType),
      timezone,
      additional_info: (pick('additionalInfo', base?.additional_info ?? null) as Record<string, unknown> | null) ?? null,
      external_id: text('externalId', base?.external_id ?? null),
      scheduler_appointment_id: (pick('schedulerAppointmentId', base?.scheduler_appointment_id ?? null) as number | null) ?? null,
      external_calendar_event_id: text('externalCalendarEventId', base?.external_calendar_event_id ?? null),
      external_event_metadata:
        (pick('externalEventMetadata', base?.external_event_metadata ?? null) as Record<string, unknown> | null) ?? null,
    },
    participants,
    patientId: firstPatient ? firstPatient.participantId.toLowerCase() : null,
  };
}

/** The fields a write changed, by API name (for the audit log and the event; never values). */
function changedFields(fields: Fields): string[] {
  return Object.keys(fields).filter((key) => fields[key as keyof Fields] !== undefined);
}

/** POST: 201 with the event. */
export async function createCalendarEvent(ctx: Context, body: EventInputBody): Promise<CalendarEventView> {
  const row = await write(ctx, (w) => createEventIn(ctx, w, body));
  return (await eventViews(ctx, [row]))[0] as CalendarEventView;
}

/**
 * An event made inside a write (its own, or an encounter's whose appointment it is: that write's
 * transaction holds the event, its participants and their audit row and event).
 */
export async function createEventIn(
  ctx: Context,
  w: Work,
  body: EventInputBody,
  options: { encounterId?: string; path?: string } = {},
): Promise<EventRow> {
  const checked = await check(ctx, body, undefined, w.db, options.path);
  const id = uuidv7();
  const inserted = await w.db
    .insertInto('calendar_events')
    .values({
      tenant_id: ctx.scope.tenantId,
      instance_id: ctx.scope.instanceId,
      id,
      ...checked.columns,
      additional_info: json(checked.columns.additional_info),
      external_event_metadata: json(checked.columns.external_event_metadata),
      external_id_updated_at: checked.columns.external_id ? w.now : null,
      encounter_id: options.encounterId ?? null,
      ...w.created(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await replaceParticipants(
    w.db,
    inserted,
    checked.participants ?? [],
    (checked.participants ?? []).map(() => uuidv7()),
  );
  w.changed({
    action: 'CALENDAR_CREATED',
    entityType: 'CALENDAR',
    entityId: id,
    patientId: checked.patientId,
    changedFields: changedFields(body),
  });
  return inserted;
}

/**
 * Ties an existing event to an encounter of a patient (inside the encounter's write): 400 when the
 * event is not in the instance, another encounter is built on it, or it is another patient's (a
 * patient among its participants who is not the encounter's).
 */
export async function attachEventIn(
  ctx: Context,
  w: Work,
  eventId: string,
  encounter: { id: string; patientId: string },
  path: string,
): Promise<EventRow> {
  const encounterId = encounter.id;
  const event = await findEvent(w.db, ctx.scope, eventId, { forUpdate: true });
  if (!event) throw validationError([{ path, message: `no calendar event ${eventId} in this instance` }]);
  if (event.encounter_id && event.encounter_id !== encounterId)
    throw validationError([{ path, message: `calendar event ${eventId} belongs to encounter ${event.encounter_id}` }]);
  const others = (await patientParticipantsOf(w.db, ctx.scope.tenantId, event.id)).filter((id) => id !== encounter.patientId);
  if (others.length > 0) throw validationError([{ path, message: `calendar event ${eventId} is another patient's appointment` }]);
  if (event.encounter_id === encounterId) return event;
  const updated = await w.db
    .updateTable('calendar_events')
    .set({ encounter_id: encounterId, ...w.updated() })
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('id', '=', event.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  w.changed({ action: 'CALENDAR_UPDATED', entityType: 'CALENDAR', entityId: event.id, changedFields: ['encounterInfo'] });
  return updated;
}

/** A jsonb value as the driver must send it (an object would be sent as a record). */
function json(value: Record<string, unknown> | null): string | null {
  return value === null ? null : JSON.stringify(value);
}

/**
 * PUT (`replace`: the body is the whole event; absent optional fields are cleared) and PATCH (the
 * fields given). Participants are replaced when given; the participants' copy of the times follows.
 */
export async function updateCalendarEvent(
  ctx: Context,
  id: string,
  body: EventPatchBody,
  replace: boolean,
): Promise<CalendarEventView> {
  const row = await write(ctx, async (w) => {
    const existing = await findEvent(w.db, ctx.scope, id, { forUpdate: true });
    if (!existing) throw new ApiError('CALENDAR_EVENT_NOT_FOUND', { id });
    const checked = await check(ctx, body, replace ? undefined : existing, w.db);
    const externalChanged = checked.columns.external_id !== existing.external_id;
    const updated = await w.db
      .updateTable('calendar_events')
      .set({
        ...checked.columns,
        additional_info: json(checked.columns.additional_info),
        external_event_metadata: json(checked.columns.external_event_metadata),
        ...(externalChanged ? { external_id_updated_at: checked.columns.external_id ? w.now : null } : {}),
        ...w.updated(),
      })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (checked.participants) {
      await replaceParticipants(
        w.db,
        updated,
        checked.participants,
        checked.participants.map(() => uuidv7()),
      );
    } else if (
      updated.start_at.getTime() !== existing.start_at.getTime() ||
      updated.end_at.getTime() !== existing.end_at.getTime()
    ) {
      await moveParticipants(w.db, updated);
    }
    w.changed({
      action: 'CALENDAR_UPDATED',
      entityType: 'CALENDAR',
      entityId: existing.id,
      patientId: checked.patientId,
      changedFields: changedFields(body),
    });
    return updated;
  });
  return (await eventViews(ctx, [row]))[0] as CalendarEventView;
}

/**
 * DECISIONS §7: an event that has begun stays, with `eventStatus` CANCELLED (its history is kept);
 * one still to come is removed, and reads 404 after, unless an encounter is built on it (then it is
 * cancelled too). Either way 204.
 */
export async function deleteCalendarEvent(ctx: Context, id: string): Promise<void> {
  await write(ctx, async (w) => {
    const existing = await findEvent(w.db, ctx.scope, id, { forUpdate: true });
    if (!existing) throw new ApiError('CALENDAR_EVENT_NOT_FOUND', { id });
    // An event an encounter is built on stays too: the encounter keeps its appointment's history.
    if (existing.start_at.getTime() <= w.now.getTime() || existing.encounter_id) {
      await w.db
        .updateTable('calendar_events')
        .set({ event_status: 'CANCELLED', ...w.updated() })
        .where('tenant_id', '=', ctx.scope.tenantId)
        .where('id', '=', existing.id)
        .execute();
      w.changed({ action: 'CALENDAR_UPDATED', entityType: 'CALENDAR', entityId: existing.id, changedFields: ['eventStatus'] });
      return;
    }
    await w.db.deleteFrom('calendar_events').where('tenant_id', '=', ctx.scope.tenantId).where('id', '=', existing.id).execute();
    w.changed({ action: 'CALENDAR_DELETED', entityType: 'CALENDAR', entityId: existing.id });
  });
}

/** An encounter let go of its event (the encounter was deleted): the event stays, an appointment of its own again. */
export async function detachEventIn(ctx: Context, w: Work, eventId: string): Promise<void> {
  const { numUpdatedRows } = await w.db
    .updateTable('calendar_events')
    .set({ encounter_id: null, ...w.updated() })
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('instance_id', '=', ctx.scope.instanceId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  if (numUpdatedRows > 0n)
    w.changed({ action: 'CALENDAR_UPDATED', entityType: 'CALENDAR', entityId: eventId, changedFields: ['encounterInfo'] });
}

/** An encounter's appointment cancelled with it: `eventStatus` CANCELLED, kept for the record. */
export async function cancelEventIn(ctx: Context, w: Work, eventId: string): Promise<void> {
  const { numUpdatedRows } = await w.db
    .updateTable('calendar_events')
    .set({ event_status: 'CANCELLED', ...w.updated() })
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('instance_id', '=', ctx.scope.instanceId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  if (numUpdatedRows > 0n)
    w.changed({ action: 'CALENDAR_UPDATED', entityType: 'CALENDAR', entityId: eventId, changedFields: ['eventStatus'] });
}
