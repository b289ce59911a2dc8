import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Scope } from '../../db/scope.ts';
import type { Context } from '../../http/context.ts';
import { type Paging, parseSort, type SortKey } from '../../http/pagination.ts';
import { cdtRecordView } from '../../records/cdt-view.ts';
import { listRecordPage } from '../../records/list.ts';
import { requirePatient } from '../../records/patient-scope.ts';
import type { CdtRecordRow } from '../../records/store.ts';
import { ApiError, validationError } from '../../wire/errors.ts';
import { readInstant } from '../../wire/schemas.ts';
import { readUsers, type UserReadRow, userViews } from '../users/index.ts';
import { encounterRecords } from './operations.ts';
import { commentView } from './parts.ts';
import { type CommentRow, commentsOf, partsOf } from './store.ts';
import { ASSESSMENT_LINK, DISPOSITION, ENCOUNTER } from './types.ts';
import { type EncounterPage, encounterViews } from './views.ts';

/**
 * The encounter lists of 002 and DECISIONS §7, through the records kernel's list (one statement
 * per page), and full encounters: a page's related records loaded for the whole page at once.
 */

/** Sorts served by the encounter indexes of migration 0012 (and the CDT patient index). */
const sortable = { createdAt: 'c.created_at', updatedAt: 'c.updated_at' };

export interface EncounterFilter {
  status?: string[] | undefined;
  /** Only encounters built on a calendar event. */
  excludeWithoutCalendarEvent?: boolean;
  ownerUserId?: string;
  activeUserId?: string | undefined;
  /** Patients whose care team holds this user. */
  careTeamOf?: string;
  /** Their appointment starts in this range. */
  from?: Date | undefined;
  to?: Date | undefined;
}

/**
 * The filters as conditions on `c`, each written so the planner can start from an index: an owner
 * through the owner index, a care team through the care-team index and the patients' encounter index.
 */
export function conditions(scope: Scope, filter: EncounterFilter): RawBuilder<SqlBool>[] {
  const where: RawBuilder<SqlBool>[] = [];
  if (filter.excludeWithoutCalendarEvent) where.push(sql<SqlBool>`c.values ? 'calendarEventId'`);
  if (filter.activeUserId) where.push(sql<SqlBool>`c.values ->> 'activeUserId' = ${filter.activeUserId}`);
  const careTeamPatients = (user: string) =>
    sql`SELECT ct.patient_id FROM patient_care_team ct WHERE ct.tenant_id = ${scope.tenantId} AND ct.user_id = ${user}`;
  if (filter.ownerUserId) {
    where.push(sql<SqlBool>`c.values ->> 'ownerUserId' = ${filter.ownerUserId}`);
  } else if (filter.careTeamOf) {
    where.push(sql<SqlBool>`c.patient_id IN (${careTeamPatients(filter.careTeamOf)})`);
  }
  if (filter.from || filter.to) {
    where.push(sql<SqlBool>`EXISTS (SELECT 1 FROM calendar_events e
      WHERE e.tenant_id = ${scope.tenantId}
        AND e.id = (CASE WHEN c.values ->> 'calendarEventId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN (c.values ->> 'calendarEventId')::uuid END)
        ${filter.from ? sql`AND e.start_at >= ${filter.from}` : sql``} ${filter.to ? sql`AND e.start_at < ${filter.to}` : sql``})`);
  }
  return where;
}

async function page(ctx: Context, filter: EncounterFilter, patientId: string | undefined, paging: Paging, sort: SortKey[]) {
  return listRecordPage(ctx.db, ctx.scope, {
    cdtName: ENCOUNTER,
    patientId,
    paging,
    sort,
    ...(filter.status?.length ? { valueIn: [{ field: 'status', values: filter.status }] } : {}),
    where: conditions(ctx.scope, filter),
  });
}

export interface ListQuery extends Paging {
  sort?: string | string[] | undefined;
}

export async function patientEncounters(ctx: Context, patientId: string, filter: EncounterFilter, query: ListQuery) {
  await requirePatient(ctx, patientId);
  const sort = parseSort(query.sort, sortable);
  const { rows, total } = await page(ctx, filter, patientId, query, sort);
  return { data: (await encounterViews(ctx, rows)).views, total };
}

async function requireUser(ctx: Context, userId: string): Promise<void> {
  const user = await ctx.db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', ctx.scope.tenantId)
    .where('id', '=', userId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!user) throw new ApiError('USER_NOT_FOUND', { userId });
}

/**
 * A user's encounters. 002's care-team-only flag (`withCareTeam`, default true here, false on the
 * full list): true lists the encounters of the patients whose care team holds the user, whoever
 * hosts them; false the encounters the user hosts. `/encounters` reads the flag the same way.
 */
function userScope(userId: string, withCareTeam: boolean | undefined): EncounterFilter {
  return withCareTeam ? { careTeamOf: userId } : { ownerUserId: userId };
}

export async function userEncounters(
  ctx: Context,
  userId: string,
  filter: EncounterFilter & { withCareTeam: boolean },
  query: ListQuery,
) {
  await requireUser(ctx, userId);
  const sort = parseSort(query.sort, sortable);
  const { withCareTeam, ...rest } = filter;
  const { rows, total } = await page(ctx, { ...rest, ...userScope(userId, withCareTeam) }, undefined, query, sort);
  return { data: (await encounterViews(ctx, rows, { list: true })).views, total };
}

/**
 * The instance's encounters. `withCareTeam` (default true) keeps those of the calling user's
 * care-team patients; an API client has no care team, so it passes false (000): true is a 400.
 */
export async function instanceEncounters(ctx: Context, filter: EncounterFilter & { withCareTeam: boolean }, query: ListQuery) {
  const { withCareTeam, ...rest } = filter;
  if (withCareTeam && ctx.caller?.type !== 'USER') {
    throw validationError(
      [{ path: 'querystring.withCareTeam', message: 'an API client has no care team: pass withCareTeam=false' }],
      'An API client lists encounters with withCareTeam=false',
    );
  }
  const sort = parseSort(query.sort, sortable);
  const careTeam = withCareTeam && ctx.caller ? { careTeamOf: ctx.caller.id } : {};
  const { rows, total } = await page(ctx, { ...rest, ...careTeam }, undefined, query, sort);
  return { data: (await encounterViews(ctx, rows, { list: true })).views, total };
}

/** Full encounters (002): each with its disposition, appointment, host, assessment links and comments. */
export async function fullEncounters(ctx: Context, rows: CdtRecordRow[]) {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [page, parts, comments] = await Promise.all([
    encounterViews(ctx, rows),
    partsOf(ctx.db, ctx.scope, ids, [DISPOSITION, ASSESSMENT_LINK]),
    commentsOf(ctx.db, ctx.scope, ids),
  ]);
  const hostIds = [...new Set([...page.events.values()].map((event) => event.row.host_id))];
  const hosts = await readUsers(ctx.db, ctx.scope.tenantId, hostIds);
  return fullEncountersOf(ctx, rows, { page, parts, comments, hosts });
}

/** What full encounters show beside their records, however it was read. */
export interface FullRelated {
  page: EncounterPage;
  /** Dispositions and assessment links of the encounters. */
  parts: CdtRecordRow[];
  comments: CommentRow[];
  hosts: UserReadRow[];
}

/** Full encounters from their records and what they show: no query here. */
export async function fullEncountersOf(ctx: Context, rows: CdtRecordRow[], related: FullRelated) {
  const { dispositions, links } = await encounterRecords(ctx);
  const { page, parts, comments } = related;
  const hostById = new Map(userViews(ctx.tenant, related.hosts).map((host) => [host.id, host]));
  return rows.map((row, index) => {
    const event = page.events.get(row.id);
    const own = parts.filter((part) => part.source_id === row.id);
    const disposition = own.find((part) => part.cdt_name === DISPOSITION);
    return {
      encounter: page.views[index]!,
      disposition: disposition ? cdtRecordView(disposition, dispositions.type.fieldNames) : null,
      calendarEvent: event?.view ?? null,
      userRelatedToCalendarEvent: (event && hostById.get(event.row.host_id)) ?? null,
      assessmentLinks: own
        .filter((part) => part.cdt_name === ASSESSMENT_LINK)
        .map((part) => cdtRecordView(part, links.type.fieldNames)),
      comments: comments.filter((comment) => comment.encounter_id === row.id).map(commentView),
    };
  });
}

/** The sort of a full list: 002's patient list takes a direction beside sort, which turns the default order (by creation). */
export function fullSort(query: ListQuery & { direction?: string | undefined }): SortKey[] {
  const sort = parseSort(query.sort, sortable);
  if (sort.length === 0 && query.direction)
    return [{ column: 'c.created_at', direction: query.direction.toLowerCase() as 'asc' | 'desc' }];
  return sort;
}

export async function fullEncounterPage(
  ctx: Context,
  filter: EncounterFilter & { withCareTeam?: boolean; userId?: string },
  patientId: string | undefined,
  query: ListQuery & { direction?: string | undefined },
) {
  if (patientId) await requirePatient(ctx, patientId);
  if (filter.userId) await requireUser(ctx, filter.userId);
  const sort = fullSort(query);
  const { userId, withCareTeam, ...rest } = filter;
  const mine = userId ? userScope(userId, withCareTeam) : {};
  const { rows, total } = await page(ctx, { ...rest, ...mine }, patientId, query, sort);
  return { data: await fullEncounters(ctx, rows), total };
}

export async function fullEncounter(ctx: Context, patientId: string, encounterId: string) {
  const { encounters } = await encounterRecords(ctx);
  await requirePatient(ctx, patientId);
  const row = await encounters.require(ctx.db, encounterId, { patientId });
  return (await fullEncounters(ctx, [row]))[0]!;
}

export function rangeFilter(query: { from?: string | Date | undefined; to?: string | Date | undefined }) {
  return {
    from: query.from ? readInstant(query.from) : undefined,
    to: query.to ? readInstant(query.to) : undefined,
  };
}
