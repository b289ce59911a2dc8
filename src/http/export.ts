import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { TSchema } from 'typebox';
import { oldestWriteInFlight } from '../db/in-flight.ts';
import type { DB } from '../db/schema.ts';
import type { Permission } from '../formation/permissions.ts';
import { ApiError } from '../wire/errors.ts';
import type { Context } from './context.ts';

/**
 * The bulk export's cursor (002 "Export", DECISIONS §8 and §10). Areas declare what they export
 * on their Area (`exports`); the export area serves each at /export/{resourceName}.
 *
 * A page is a keyset read: records at or after the cursor's position, ordered by (updated_at, id),
 * on an index that starts with tenant, instance and updated_at, so page 10,000 costs what page 1
 * does. One row more than the page is read: its position is the page's `end`, so the next page,
 * inclusive at its `start`, begins with it: nothing is lost or repeated. `end` is an RFC 3339
 * date-time (clients keep it as one). When a page ends inside a group of records sharing one
 * instant, its fraction carries, after the 6 digits of microseconds, the next record's id as 39
 * digits, so even 10,000 records updated at once are walked without a loop. A record updated
 * while a client walks moves to the end, where the walk meets it again with its change.
 *
 * A write stamps its instant before it commits, so a cursor must never pass an instant a write
 * still open may stamp (db/in-flight.ts). A page therefore holds back the records at or after the
 * oldest write of the tenant still in flight (PostgreSQL; on PGlite none ever is), and nothing
 * else: a write the client has been answered for is in the next page read. What the database
 * cannot show is covered by the settle time (`settleMs`: a write's way from taking its instant to
 * reaching the database, clocks of several nodes apart, one-statement writes; on PGlite only the
 * current millisecond, which a later write may share): a page's `end` never passes that border,
 * so the records updated within it are given again by the next walk rather than ever skipped.
 */

/** What an area exports under one resource name. */
export interface ExportSource {
  /** The permission an API client's policy must grant to export it. */
  permission: Permission;
  /** What the resource's items are, for the API docs. */
  summary: string;
  /** An item's schema: the resource's own read route's. */
  item: TSchema;
  /** The table read, aliased `r`: its rows have tenant_id, instance_id, id and the update time. */
  table: keyof DB & string;
  /** The column of its last update: `updated_at`, or when records that never change were made (chat, the access log). */
  updatedColumn?: 'updated_at' | 'created_at' | 'occurred_at';
  /** Conditions beyond tenant and instance (a CDT's name). */
  where?: (ctx: Context) => RawBuilder<SqlBool>[];
  /** Columns besides `r.*` that its view needs (the relations the read route composes). */
  columns?: (ctx: Context) => RawBuilder<unknown>[];
  /**
   * The patients a page shows, for the access log: from its rows (`patientsOf.column`, most
   * tables' `patient_id`), or from its items where the patients are not one column (a calendar
   * event's participants), or none with why (a PDT record belongs to no patient).
   */
  patientsOf: { column: string } | { items: (items: unknown[]) => unknown[] } | { none: string };
  /** The column `patientIds` selects on, for the resources that take it (CDT_RECORD, VOICE_CALL). */
  patientColumn?: string;
  /** The rows as the resource's own read route shows them (file links at `origin`), with no query per row. */
  view(ctx: Context, rows: never[], origin: string): Promise<unknown[]> | unknown[];
}

/** A place in the export's order. */
export interface Position {
  /** updated_at to the microsecond, as `YYYY-MM-DDTHH:MM:SS.ffffff`, UTC. */
  at: string;
  /** The first id at that instant on the page; the nil uuid starts at its first record. */
  id: string;
}

export interface ExportPage {
  data: unknown[];
  cursor: { start: string | null; end: string; hasNext: boolean; pageSize: number };
}

/** A page, and the patients it shows (for the access log, not the answer). */
export interface ShownPage {
  page: ExportPage;
  patients: unknown[];
}

const NIL = '00000000-0000-0000-0000-000000000000';
const ID_DIGITS = 39;
const dateTime = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:?\d{2})$/i;

/** A client's `start`: a cursor's `end`, or any RFC 3339 date-time (from its first record on). */
export function parseStart(start: string): Position {
  const match = dateTime.exec(start.trim());
  const instant = match ? new Date(`${match[1]}T${match[2]}${match[4]}`) : null;
  if (!match || !instant || Number.isNaN(instant.getTime())) {
    throw new ApiError('VALIDATION_ERROR', { errors: [{ path: 'querystring.start', message: 'must be a date-time' }] });
  }
  const fraction = match[3] ?? '';
  const micros = fraction.slice(0, 6).padEnd(6, '0');
  const at = `${instant.toISOString().slice(0, 19)}.${micros}`;
  if (fraction.length !== 6 + ID_DIGITS) return { at, id: NIL };
  const hex = BigInt(fraction.slice(6)).toString(16).padStart(32, '0');
  if (hex.length !== 32) return { at, id: NIL };
  return { at, id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` };
}

/** A position as a date-time: the instant, and the id when the group at that instant is split. */
export function formatPosition(position: Position, split: boolean): string {
  if (!split) return `${position.at}Z`;
  const digits = BigInt(`0x${position.id.replaceAll('-', '')}`)
    .toString()
    .padStart(ID_DIGITS, '0');
  return `${position.at}${digits}Z`;
}

interface Row {
  export_at: string;
  id: string;
  [column: string]: unknown;
}

/** One page of `source`: at most `pageSize` records from `start` (inclusive), and the cursor on. */
export async function exportPage(
  ctx: Context,
  source: ExportSource,
  query: { start?: string | undefined; pageSize: number; patientIds?: string[] | undefined },
  settleMs: number,
  origin: string,
): Promise<ShownPage> {
  const updated = sql.ref(`r.${source.updatedColumn ?? 'updated_at'}`);
  const from = query.start === undefined ? null : parseStart(query.start);
  const { clock, dbKind } = ctx.services;
  // The clock first, then the writes in flight, then the rows: a write not yet in flight when they
  // are read stamps an instant after the clock's (within the settle time, across nodes).
  const now = clock.now().getTime();
  const inFlight = await oldestWriteInFlight(ctx.db, dbKind, ctx.scope.tenantId);
  const settled: Position = {
    at: atOf(new Date(Math.min(now, inFlight?.getTime() ?? now) - (dbKind === 'pglite' ? 0 : settleMs))),
    id: NIL,
  };
  // The table is the area's: a name, not a type known here.
  const db = ctx.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  let select = db
    .selectFrom(`${source.table} as r`)
    .selectAll('r')
    .select(sql<string>`to_char(${updated} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`.as('export_at'))
    .where('r.tenant_id', '=', ctx.scope.tenantId)
    .where('r.instance_id', '=', ctx.scope.instanceId);
  if (inFlight) select = select.where(updated, '<', inFlight);
  if (from) select = select.where(sql<SqlBool>`(${updated}, r.id) >= (${`${from.at}Z`}::timestamptz, ${from.id}::uuid)`);
  if (source.patientColumn && query.patientIds?.length) {
    select = select.where(sql.ref(`r.${source.patientColumn}`), '=', sql`ANY(${query.patientIds}::uuid[])`);
  }
  for (const condition of source.where?.(ctx) ?? []) select = select.where(condition);
  for (const column of source.columns?.(ctx) ?? []) select = select.select(column as never);
  const rows = (await select
    .orderBy(updated)
    .orderBy('r.id')
    .limit(query.pageSize + 1)
    .execute()) as unknown as Row[];

  const hasNext = rows.length > query.pageSize;
  let page = rows.slice(0, query.pageSize);
  const positionOf = (index: number): Position => ({ at: rows[index]!.export_at, id: rows[index]!.id });
  const sharesInstant = (index: number) => index > 0 && rows[index - 1]!.export_at === rows[index]!.export_at;
  const unsettled = (index: number) => !before(positionOf(index), settled);
  let end: string;
  if (hasNext && unsettled(query.pageSize) && !unsettled(0)) {
    // The next page would begin past the border: this one stops at it, and the next begins there.
    page = rows.slice(
      0,
      rows.findIndex((_, index) => unsettled(index)),
    );
    end = formatPosition(settled, false);
  } else if (hasNext) end = formatPosition(positionOf(query.pageSize), sharesInstant(query.pageSize));
  else if (page.length > 0 && unsettled(page.length - 1)) {
    // The walk has caught up: it may begin again at the border (not before its own start), not past it.
    end = from && !before(from, settled) ? (query.start as string) : formatPosition(settled, false);
  } else if (page.length > 0) end = formatPosition(positionOf(page.length - 1), sharesInstant(page.length - 1));
  else end = query.start ?? formatPosition(settled, false);
  const data = await source.view(ctx, page as never[], origin);
  const shown = source.patientsOf;
  const patients = 'column' in shown ? page.map((row) => row[shown.column]) : 'items' in shown ? shown.items(data) : [];
  return { page: { data, cursor: { start: query.start ?? null, end, hasNext, pageSize: query.pageSize } }, patients };
}

/** An instant as a position's `at` (microseconds, UTC). */
function atOf(instant: Date): string {
  return `${instant.toISOString().slice(0, 23)}000`;
}

/** Whether `a` comes before `b` in the export's order (`at` strings compare as they sort). */
function before(a: Position, b: Position): boolean {
  return a.at < b.at || (a.at === b.at && a.id < b.id);
}
