import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import type { ReadRecording } from '../../events/access.ts';
import { filteredPage, type Paging } from '../../http/pagination.ts';

/**
 * The calendar's SQL. Every query names the tenant and the instance; a member's events are read
 * through the indexes that lead with the member (migration 0011 explains the short/long split).
 */

export type EventRow = Row<'calendar_events'>;
export type WorkHoursRow = Row<'work_hours'>;

export interface Range {
  from: Date;
  to: Date;
}

/**
 * Ids of the events overlapping `range` in the table given (`calendar_events` by host or by
 * instance, `calendar_event_participants` by participant): events of a day or less through the
 * start index, bounded on both sides, and longer ones through the partial index on their end.
 */
function overlapping(
  scope: Scope,
  range: Range,
  source: { table: 'calendar_events' | 'calendar_event_participants'; id: string; member?: string; members?: string[] },
): RawBuilder<unknown> {
  const { table, id, member, members } = source;
  const byMember = member && members ? sql`AND ${sql.ref(member)} = ANY(${members}::uuid[])` : sql``;
  const memberColumn = member ? sql`${sql.ref(member)} AS member_id, ` : sql``;
  const where = sql`tenant_id = ${scope.tenantId} AND instance_id = ${scope.instanceId} ${byMember}`;
  return sql`
    SELECT ${memberColumn}${sql.ref(id)} AS id FROM ${sql.table(table)}
    WHERE ${where} AND NOT long
      AND start_at >= ${range.from}::timestamptz - interval '1 day' AND start_at < ${range.to} AND end_at > ${range.from}
    UNION ALL
    SELECT ${memberColumn}${sql.ref(id)} AS id FROM ${sql.table(table)}
    WHERE ${where} AND long AND end_at > ${range.from} AND start_at < ${range.to}`;
}

/** Events of the given members: as host, or as participant (both, once per member and event). */
function membersEvents(scope: Scope, range: Range, members: string[]): RawBuilder<unknown> {
  return sql`
    ${overlapping(scope, range, { table: 'calendar_events', id: 'id', member: 'host_id', members })}
    UNION
    ${overlapping(scope, range, { table: 'calendar_event_participants', id: 'event_id', member: 'participant_id', members })}`;
}

export interface EventFilter extends Range {
  participantIds?: string[] | undefined;
  eventType?: string | undefined;
  includeCancelled: boolean;
  excludeAssignedToEncounterEvents: boolean;
}

function residual(filter: Pick<EventFilter, 'eventType' | 'includeCancelled' | 'excludeAssignedToEncounterEvents'>) {
  const terms: RawBuilder<unknown>[] = [];
  if (filter.eventType) terms.push(sql`upper(e.event_type) = upper(${filter.eventType})`);
  if (!filter.includeCancelled) terms.push(sql`(e.event_status IS NULL OR upper(e.event_status) <> 'CANCELLED')`);
  if (filter.excludeAssignedToEncounterEvents) terms.push(sql`e.encounter_id IS NULL`);
  return terms.length > 0 ? sql`AND ${sql.join(terms, sql` AND `)}` : sql``;
}

/** What a page of the events list brings beside its rows, in its own statement (events-page.ts). */
export interface PageExtras {
  /** Columns computed for each row (`e`): its participants, its host's zone, its encounter. */
  columns: RawBuilder<unknown>[];
  /** The patients the page's rows name, and the request's access record to write with them. */
  patients?: { select: RawBuilder<unknown>; of(row: Record<string, unknown>): readonly string[] };
  reading?: ReadRecording | undefined;
}

/** A page of the events list and the total, in one statement (the shared `filteredPage`), with `extras`. */
export function listEvents<Extra = unknown>(
  db: Kysely<DB>,
  scope: Scope,
  filter: EventFilter,
  paging: Paging,
  direction: 'asc' | 'desc',
  extras: PageExtras = { columns: [] },
): Promise<{ rows: (EventRow & Extra)[]; total: number }> {
  const ids = filter.participantIds?.length
    ? sql`SELECT id FROM (${membersEvents(scope, filter, filter.participantIds)}) m`
    : sql`SELECT id FROM (${overlapping(scope, filter, { table: 'calendar_events', id: 'id' })}) m`;
  const base = db
    .selectFrom('calendar_events as e')
    .where('e.tenant_id', '=', scope.tenantId)
    .where(sql<SqlBool>`e.id IN (${ids}) ${residual(filter)}`);
  const list = {
    base: base as never,
    table: 'calendar_events',
    alias: 'e',
    tenantId: scope.tenantId,
    searched: false,
    extra: extras.columns,
    ...(extras.reading && extras.patients ? { reading: extras.reading, patientsOfPage: extras.patients } : {}),
  };
  const order = { keys: [{ column: 'e.start_at', direction }], fallback: [], tieBreaker: 'e.id' };
  return filteredPage<EventRow & Extra>(db as Kysely<never>, list, order, paging);
}

/** Each member's events in range (as host or participant), for all members in one statement. */
export async function eventsOfMembers(
  db: Kysely<DB>,
  scope: Scope,
  members: string[],
  range: Range,
  includeCancelled: boolean,
): Promise<(EventRow & { member_id: string })[]> {
  const { rows } = await sql<EventRow & { member_id: string }>`
    SELECT m.member_id, e.*
    FROM (${membersEvents(scope, range, members)}) m JOIN calendar_events e ON e.tenant_id = ${scope.tenantId} AND e.id = m.id
    WHERE true ${residual({ includeCancelled, excludeAssignedToEncounterEvents: false })}
    ORDER BY e.start_at, e.id`.execute(db);
  return rows;
}

export function findEvent(
  db: Kysely<DB>,
  scope: Scope,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<EventRow | undefined> {
  let query = db
    .selectFrom('calendar_events')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export interface ParticipantRow {
  event_id: string;
  id: string;
  participant_id: string;
  participant_role: string;
  participation_status: string | null;
  attended: boolean | null;
  /** From the patient or the user the participant is; null when it no longer exists. */
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  gender: string | null;
  birth_date: string | null;
  timezone: string | null;
  enabled: boolean | null;
  found: boolean;
}

/**
 * A participant's columns (ParticipantRow), filled from its patient or user, from `cp` and the
 * joins below; shared by the batch read and the page's JSON (events-page.ts).
 */
export const participantColumns = sql`cp.event_id, cp.id, cp.participant_id, cp.participant_role, cp.participation_status, cp.attended,
  coalesce(p.first_name, u.first_name) AS first_name, coalesce(p.last_name, u.last_name) AS last_name,
  coalesce(p.email, u.email) AS email, coalesce(p.phone, u.phone) AS phone, p.gender,
  p.birth_date, coalesce(p.timezone, u.timezone) AS timezone,
  CASE WHEN p.id IS NOT NULL THEN true ELSE u.enabled END AS enabled,
  (p.id IS NOT NULL OR (u.id IS NOT NULL AND u.deleted_at IS NULL)) AS found`;

/** The patient or the user each participant `cp` is, both pinned to the tenant. */
export function participantJoins(tenantId: string): RawBuilder<unknown> {
  return sql`LEFT JOIN patients p ON lower(cp.participant_role) = 'patient'
      AND p.tenant_id = ${tenantId} AND p.instance_id = cp.instance_id AND p.id = cp.participant_id
    LEFT JOIN users u ON lower(cp.participant_role) <> 'patient' AND u.tenant_id = ${tenantId} AND u.id = cp.participant_id`;
}

/** The participants of the events given, each filled from its patient or user: one statement for any number of events. */
export async function participantsOf(db: Kysely<DB>, tenantId: string, eventIds: string[]): Promise<ParticipantRow[]> {
  if (eventIds.length === 0) return [];
  const { rows } = await sql<ParticipantRow>`
    SELECT ${participantColumns}
    FROM calendar_event_participants cp
    ${participantJoins(tenantId)}
    WHERE cp.tenant_id = ${tenantId} AND cp.event_id = ANY(${eventIds}::uuid[])
    ORDER BY cp.event_id, cp.position`.execute(db);
  return rows;
}

/**
 * The participants of the event aliased `event` as a JSON array of ParticipantRow, in their order:
 * for a statement that shows events with theirs (a page of events, a patient's full encounters).
 */
export function participantsJson(tenantId: string, event: string): RawBuilder<unknown> {
  // `position` rides along for the order, unread.
  return sql`(SELECT coalesce(json_agg(row_to_json(cp_row) ORDER BY cp_row.position), '[]'::json)
    FROM (SELECT ${participantColumns}, cp.position FROM calendar_event_participants cp ${participantJoins(tenantId)}
      WHERE cp.tenant_id = ${tenantId} AND cp.event_id = ${sql.ref(`${event}.id`)}) AS cp_row)`;
}

/** The stored `__encounter__` record an event is built on: what its encounter info is read from. */
export interface EncounterRecord {
  id: string;
  patient_id: string;
  values: Record<string, unknown>;
}

/** The patients an event names among its participants (role `patient`), in their order. */
export async function patientParticipantsOf(db: Kysely<DB>, tenantId: string, eventId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('calendar_event_participants')
    .select('participant_id')
    .where('tenant_id', '=', tenantId)
    .where('event_id', '=', eventId)
    .where(sql<SqlBool>`lower(participant_role) = 'patient'`)
    .orderBy('position')
    .execute();
  return rows.map((row) => row.participant_id);
}

export interface NewParticipant {
  participantId: string;
  participantRole: string;
  participationStatus?: string | null | undefined;
  attended?: boolean | null | undefined;
}

/** Replaces an event's participants (a write's transaction). */
export async function replaceParticipants(db: Kysely<DB>, event: EventRow, participants: NewParticipant[], ids: string[]) {
  await db
    .deleteFrom('calendar_event_participants')
    .where('tenant_id', '=', event.tenant_id)
    .where('event_id', '=', event.id)
    .execute();
  if (participants.length === 0) return;
  await db
    .insertInto('calendar_event_participants')
    .values(
      participants.map((participant, position) => ({
        tenant_id: event.tenant_id,
        instance_id: event.instance_id,
        id: ids[position] as string,
        event_id: event.id,
        position,
        participant_id: participant.participantId.toLowerCase(),
        participant_role: participant.participantRole,
        // 002: UNKNOWN is what a participant's status is until told otherwise.
        participation_status: participant.participationStatus ?? 'UNKNOWN',
        attended: participant.attended ?? null,
        start_at: event.start_at,
        end_at: event.end_at,
      })),
    )
    .execute();
}

/** Keeps the participants' copy of the event's times in step with it. */
export async function moveParticipants(db: Kysely<DB>, event: EventRow): Promise<void> {
  await db
    .updateTable('calendar_event_participants')
    .set({ start_at: event.start_at, end_at: event.end_at })
    .where('tenant_id', '=', event.tenant_id)
    .where('event_id', '=', event.id)
    .execute();
}

export interface MemberRow {
  id: string;
  timezone: string | null;
}

/** Live users of the tenant among `ids` (hosts, members), with their zones. */
export function usersAmong(db: Kysely<DB>, tenantId: string, ids: string[]): Promise<MemberRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .select(['id', 'timezone'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Patients of the instance among `ids`. */
export async function patientsAmong(db: Kysely<DB>, scope: Scope, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('patients')
    .select('id')
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

// ---- Work hours ------------------------------------------------------------------------------

export function findWorkHours(db: Kysely<DB>, scope: Scope, id: string, forUpdate = false) {
  let query = db
    .selectFrom('work_hours')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', '=', id);
  if (forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The members' rules overlapping `range`, for all members in one statement. */
export function workHoursOf(db: Kysely<DB>, scope: Scope, members: string[], range: Range): Promise<WorkHoursRow[]> {
  if (members.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('work_hours')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('psm_id', 'in', members)
    .where('start_at', '<', range.to)
    .where('end_at', '>', range.from)
    .orderBy('psm_id')
    .orderBy('start_at')
    .orderBy('id')
    .execute();
}

/** The events among `ids` (an encounter page's appointments): one statement. */
export function eventsAmong(db: Kysely<DB>, scope: Scope, ids: string[]): Promise<EventRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('calendar_events')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('instance_id', '=', scope.instanceId)
    .where('id', 'in', ids)
    .execute();
}
