import type { Kysely } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB } from '../../db/schema.ts';
import type { Formation } from '../../formation/schemas.ts';
import type { Context } from '../../http/context.ts';
import { ApiError, type FieldError, validationError } from '../../wire/errors.ts';
import { LATEST, readInstant } from '../../wire/schemas.ts';
import { write } from '../../work/write.ts';
import type { WorkHoursInputBody, WorkHoursView } from './schemas.ts';
import { findWorkHours, type Range, usersAmong, type WorkHoursRow, workHoursOf } from './store.ts';
import type { DayInfo } from './tables.ts';
import { workHoursView, zoneFor, zonesOf } from './views.ts';

/** Work hours and availability rules of care-team members (002 "Work hours entry", DECISIONS §7–§8). */

/** PROD-SHAPES: an open-ended rule ends 50 years after it starts. */
const OPEN_ENDED_YEARS = 50;

/** `24:00:00` and `00:00:00` as an end time mean the end of the day. */
export function endsAtMidnight(endTime: string): boolean {
  return endTime === '24:00:00' || endTime === '00:00:00';
}

export type Grouped = { psmId: string; details: WorkHoursView[] }[];

/** GET: each requested member's rules overlapping the range, in the order asked, empty ones included. */
export async function getWorkHours(ctx: Context, members: string[], range: Range, viewerTimezone?: string): Promise<Grouped> {
  const ids = [...new Set(members.map((id) => id.toLowerCase()))];
  const [rows, zones] = await Promise.all([workHoursOf(ctx.db, ctx.scope, ids, range), zonesOf(ctx, viewerTimezone, ids)]);
  return group(ctx, ids, rows, zones, viewerTimezone);
}

export function group(
  ctx: Context,
  members: string[],
  rows: WorkHoursRow[],
  zones: Map<string, string | null>,
  viewerTimezone: string | undefined,
): Grouped {
  return members.map((psmId) => {
    const zone = zoneFor(ctx, viewerTimezone, zones.get(psmId));
    return {
      psmId,
      details: rows.filter((row) => row.psm_id === psmId).map((row) => workHoursView(row, zone)),
    };
  });
}

interface CheckedRule {
  psm_id: string;
  name: string | null;
  type: string;
  rule_type: string;
  start_at: Date;
  end_at: Date;
  days_info: string;
  encounters: string[];
}

/** The rules of 002: the member a user of the tenant, times in order, AVAILABILITY naming the formation's encounter templates. */
async function check(
  ctx: Context,
  db: Kysely<DB>,
  formation: Formation,
  body: WorkHoursInputBody,
  existing?: WorkHoursRow,
): Promise<CheckedRule> {
  const errors: FieldError[] = [];
  const psmId = body.psmId.toLowerCase();
  const users = await usersAmong(db, ctx.scope.tenantId, [psmId]);
  if (users.length === 0) errors.push({ path: 'body.psmId', message: `no user ${psmId} in this tenant` });
  const start = readInstant(body.startDateTime);
  let end = body.endDateTime ? readInstant(body.endDateTime) : new Date(start);
  if (!body.endDateTime) {
    end.setUTCFullYear(end.getUTCFullYear() + OPEN_ENDED_YEARS);
    // A rule starting in the last 50 years of the calendar ends with it.
    if (end.getTime() > LATEST) end = new Date(LATEST);
  }
  if (end.getTime() <= start.getTime()) errors.push({ path: 'body.endDateTime', message: 'must be after startDateTime' });
  for (const [index, day] of body.daysInfo.entries()) {
    if (!endsAtMidnight(day.endTime) && day.endTime <= day.startTime)
      errors.push({ path: `body.daysInfo.${index}.endTime`, message: 'must be after startTime (or 24:00:00)' });
  }
  const encounters = body.type === 'AVAILABILITY' ? (body.encounters ?? []) : [];
  if (body.type === 'AVAILABILITY') {
    if (encounters.length === 0)
      errors.push({ path: 'body.encounters', message: 'AVAILABILITY names the encounter templates it is open for' });
    const templates = new Set((formation.encounterTemplates ?? []).map((template) => template.name));
    for (const [index, name] of encounters.entries()) {
      if (!templates.has(name)) errors.push({ path: `body.encounters.${index}`, message: `no encounter template "${name}"` });
    }
  }
  if (errors.length > 0) throw validationError(errors);
  // An entry keeps its daysInfoId when its day and times are unchanged, so a client's reference still holds.
  const kept = new Map((existing?.days_info ?? []).map((day) => [`${day.day}/${day.startTime}/${day.endTime}`, day.daysInfoId]));
  const days: DayInfo[] = body.daysInfo.map((day) => ({
    daysInfoId: kept.get(`${day.day}/${day.startTime}/${day.endTime}`) ?? uuidv7(),
    day: day.day,
    startTime: day.startTime,
    endTime: day.endTime,
  }));
  return {
    psm_id: psmId,
    name: body.name ?? null,
    type: body.type,
    rule_type: body.ruleType ?? 'DEFAULT',
    start_at: start,
    end_at: end,
    days_info: JSON.stringify(days),
    encounters,
  };
}

/** POST: the new rule, grouped under its member. */
export async function createWorkHours(ctx: Context, body: WorkHoursInputBody): Promise<Grouped> {
  const rule = await check(ctx, ctx.db, await ctx.formation(), body);
  const id = uuidv7();
  const row = await write(ctx, async (w) => {
    const inserted = await w.db
      .insertInto('work_hours')
      .values({ tenant_id: ctx.scope.tenantId, instance_id: ctx.scope.instanceId, id, ...rule, ...w.created() })
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({ action: 'WORK_HOURS_CREATED', entityType: 'WORK_HOURS', entityId: id, changedFields: Object.keys(body) });
    return inserted;
  });
  return group(ctx, [row.psm_id], [row], await zonesOf(ctx, undefined, [row.psm_id]), undefined);
}

/** PUT: the rule replaced by the body. */
export async function updateWorkHours(ctx: Context, id: string, body: WorkHoursInputBody): Promise<Grouped> {
  const formation = await ctx.formation();
  const row = await write(ctx, async (w) => {
    const existing = await findWorkHours(w.db, ctx.scope, id, true);
    if (!existing) throw new ApiError('WORK_HOURS_NOT_FOUND', { workHoursId: id });
    const rule = await check(ctx, w.db, formation, body, existing);
    const updated = await w.db
      .updateTable('work_hours')
      .set({ ...rule, ...w.updated() })
      .where('tenant_id', '=', ctx.scope.tenantId)
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    w.changed({ action: 'WORK_HOURS_UPDATED', entityType: 'WORK_HOURS', entityId: id, changedFields: Object.keys(body) });
    return updated;
  });
  return group(ctx, [row.psm_id], [row], await zonesOf(ctx, undefined, [row.psm_id]), undefined);
}
