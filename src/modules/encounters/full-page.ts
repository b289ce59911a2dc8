import { type RawBuilder, sql } from 'kysely';
import { PREPARED } from '../../db/sql.ts';
import { shownRecord } from '../../events/access.ts';
import { type Context, readRecording } from '../../http/context.ts';
import { applySort, offsetOf, orderBy, type SortKey } from '../../http/pagination.ts';
import { filteredRecords, recordOrder } from '../../records/list.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import type { CdtRecordRow } from '../../records/store.ts';
import { ApiError } from '../../wire/errors.ts';
import { type EventRow, eventView, type ParticipantRow, participantsJson, zoneFor } from '../calendar/index.ts';
import { type UserReadRow, userRelations } from '../users/index.ts';
import { conditions, type EncounterFilter, fullEncountersOf, fullSort, type ListQuery } from './lists.ts';
import type { CommentRow } from './store.ts';
import { ASSESSMENT_LINK, DISPOSITION, ENCOUNTER } from './types.ts';
import { encounterPage, nameOf } from './views.ts';

/**
 * A patient's full encounters in one statement (issue 43): the patient's check, the page and its
 * total, each encounter's appointment (participants, host, host's zone), owner and active user
 * names, disposition, assessment links and comments as JSON columns, and the answer's access
 * record (not on Citus: http/context.ts readRecording). Every table names the tenant as a
 * parameter, so Citus routes it to one shard. The views are those of the other lists (views.ts,
 * lists.ts fullEncountersOf), fed from the columns.
 */

type Name = { first_name: string | null; last_name: string | null };

interface FullRow extends CdtRecordRow {
  cairn_total: number;
  cairn_patient: boolean;
  cairn_event: Dated<EventRow> | null;
  cairn_participants: ParticipantRow[] | null;
  cairn_host_zone: string | null;
  cairn_host: Dated<UserReadRow> | null;
  cairn_owner: Name | null;
  cairn_active: Name | null;
  cairn_parts: Dated<CdtRecordRow>[];
  cairn_comments: Dated<CommentRow>[];
}

/** A row read as JSON: its timestamps are text until `dated` turns them back into Dates. */
type Dated<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

function dated<T>(row: Dated<T>, columns: readonly string[]): T {
  const out = { ...row } as Record<string, unknown>;
  for (const column of columns) if (typeof out[column] === 'string') out[column] = new Date(out[column] as string);
  return out as T;
}

const STAMPS = ['created_at', 'updated_at'] as const;
const EVENT_STAMPS = [...STAMPS, 'start_at', 'end_at', 'external_id_updated_at'];
const USER_STAMPS = [...STAMPS, 'deleted_at'];

/** An id stored in values (`c.values ->> field`), as a uuid when it is one: a value written by hand must not break the query. */
function storedId(field: string): RawBuilder<unknown> {
  return sql`(CASE WHEN c.values ->> ${field} ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (c.values ->> ${field})::uuid END)`;
}

export async function patientFullEncounterPage(
  ctx: Context,
  patientId: string,
  filter: EncounterFilter,
  query: ListQuery & { direction?: string | undefined },
) {
  let sort: SortKey[];
  try {
    sort = fullSort(query);
  } catch (error) {
    // A missing patient answers 404 before a bad sort's 400, as the patient is checked first elsewhere.
    await requirePatient(ctx, patientId);
    throw error;
  }
  const { tenantId: tenant, instanceId: instance } = ctx.scope;
  const base = filteredRecords(ctx.db, ctx.scope, {
    cdtName: ENCOUNTER,
    patientId,
    ...(filter.status?.length ? { valueIn: [{ field: 'status', values: filter.status }] } : {}),
    where: conditions(ctx.scope, filter),
  });
  const page = applySort(base.selectAll('c'), sort, recordOrder.fallback, recordOrder.tieBreaker)
    .limit(query.size)
    .offset(offsetOf(query));
  const total = base.select((eb) => eb.fn.countAll<number>().as('cairn_total'));
  const reading = readRecording(ctx);
  // The answer shows the patient (the path's), and its total: recorded when the patient is found.
  const recorded = reading
    ? sql`, recorded AS (${shownRecord(reading, { patients: sql`ARRAY(SELECT id FROM patient)`, matched: sql`(SELECT cairn_total FROM total)` })})`
    : sql``;
  const name = (field: string) =>
    sql`(SELECT json_build_object('first_name', u.first_name, 'last_name', u.last_name) FROM users u
      WHERE u.tenant_id = ${tenant} AND u.id = ${storedId(field)})`;
  const statement = sql<FullRow>`${sql.raw(PREPARED)}
    WITH patient AS (SELECT p.id FROM patients p WHERE p.tenant_id = ${tenant} AND p.instance_id = ${instance} AND p.id = ${patientId}),
    page AS (${page}),
    total AS (${total})${recorded}
    SELECT c.*, total.cairn_total, EXISTS (SELECT 1 FROM patient) AS cairn_patient,
      ev.event AS cairn_event, ev.participants AS cairn_participants, ev.host_zone AS cairn_host_zone, ev.host AS cairn_host,
      ${name('ownerUserId')} AS cairn_owner, ${name('activeUserId')} AS cairn_active,
      (SELECT coalesce(json_agg(d ORDER BY d.created_at, d.id), '[]') FROM cdt_records d
        WHERE d.tenant_id = ${tenant} AND d.source_id = c.id AND d.cdt_name IN (${DISPOSITION}, ${ASSESSMENT_LINK})
          AND d.instance_id = ${instance} AND d.source_name = ${ENCOUNTER}) AS cairn_parts,
      (SELECT coalesce(json_agg(m ORDER BY m.created_at, m.id), '[]') FROM encounter_comments m
        WHERE m.tenant_id = ${tenant} AND m.encounter_id = c.id AND m.instance_id = ${instance}) AS cairn_comments
    FROM total
    LEFT JOIN page AS c ON true
    LEFT JOIN LATERAL (
      SELECT to_json(e) AS event, ${participantsJson(tenant, 'e')} AS participants,
        (SELECT u.timezone FROM users u WHERE u.tenant_id = ${tenant} AND u.id = e.host_id AND u.deleted_at IS NULL) AS host_zone,
        (SELECT to_json(h) FROM (SELECT u.*, ${sql.join(userRelations(tenant))} FROM users u
          WHERE u.tenant_id = ${tenant} AND u.deleted_at IS NULL AND u.id = e.host_id) h) AS host
      FROM calendar_events e
      WHERE e.tenant_id = ${tenant} AND e.instance_id = ${instance} AND e.id = ${storedId('calendarEventId')}) ev ON true
    ORDER BY ${sql.raw(orderBy(sort, recordOrder.fallback, recordOrder.tieBreaker))}`;
  const { rows } = await statement.execute(ctx.db);
  if (!rows[0]?.cairn_patient) throw new ApiError('PATIENT_NOT_FOUND', { patientId });
  const totalCount = Number(rows[0].cairn_total);
  if (reading) {
    reading.record.recorded.add(patientId);
    reading.record.counted = true;
  }
  // An empty page is the count's row alone, its page columns null.
  const found = rows.filter((row) => row.id !== null);
  return { data: await fullOf(ctx, found), total: totalCount };
}

/** The rows' columns as the views take them. */
async function fullOf(ctx: Context, found: FullRow[]) {
  if (found.length === 0) return [];
  const rows: CdtRecordRow[] = [];
  const events = new Map<string, { row: EventRow; view: ReturnType<typeof eventView> }>();
  const names = new Map<string, string | null>();
  const hosts = new Map<string, UserReadRow>();
  // zonesOf's: the hosts' zones are read for an API client only.
  const zones = new Map<string, string | null>();
  const userCaller = ctx.caller?.type === 'USER';
  for (const full of found) {
    const {
      cairn_total: _total,
      cairn_patient: _patient,
      cairn_event: event,
      cairn_participants: participants,
      cairn_host_zone: hostZone,
      cairn_host: host,
      cairn_owner: owner,
      cairn_active: active,
      cairn_parts: _parts,
      cairn_comments: _comments,
      ...row
    } = full;
    rows.push(row);
    const values = row.values as Record<string, unknown>;
    if (owner) names.set(String(values.ownerUserId).toLowerCase(), nameOf(owner));
    if (active) names.set(String(values.activeUserId).toLowerCase(), nameOf(active));
    if (!event) continue;
    const eventRow = dated<EventRow>(event, EVENT_STAMPS);
    if (!userCaller && host) zones.set(eventRow.host_id, hostZone);
    const zone = zoneFor(ctx, undefined, (userCaller ? undefined : hostZone) ?? eventRow.timezone);
    events.set(eventRow.id, { row: eventRow, view: eventView(eventRow, participants ?? [], zone) });
    if (host) hosts.set(host.id, dated<UserReadRow>(host, USER_STAMPS));
  }
  const page = encounterPage(ctx, rows, { events, names, patients: new Map(), zones });
  return fullEncountersOf(ctx, rows, {
    page,
    parts: found.flatMap((full) => full.cairn_parts.map((part) => dated<CdtRecordRow>(part, STAMPS))),
    comments: found.flatMap((full) => full.cairn_comments.map((comment) => dated<CommentRow>(comment, STAMPS))),
    hosts: [...hosts.values()],
  });
}
