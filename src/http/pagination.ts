import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { type TSchema, Type } from 'typebox';
import { PREPARED } from '../db/sql.ts';
import { type ReadRecording, shownRecord } from '../events/access.ts';
import { ApiError } from '../wire/errors.ts';

/**
 * Paging, sorting and the paged response shapes of 000, built the same way for every list:
 * offset pages ("page object", "data and meta") for lists a client browses, and keyset pages
 * with signed tokens for lists that can grow without bound (export cursors, chat token pages).
 */

export const MAX_PAGE_SIZE = 1000;
/** Beyond this, offset paging costs more than any client needs; cursors exist for export. */
export const MAX_PAGE = 1_000_000;

export const PagingQuery = {
  page: Type.Integer({ minimum: 0, maximum: MAX_PAGE, default: 0, description: 'Zero-based page.' }),
  size: Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: 'Page size, 1–1000.' }),
  sort: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: '`<field>,<asc|desc>`; repeat for more keys.',
    }),
  ),
};

export interface Paging {
  page: number;
  size: number;
}

export interface SortKey {
  /** The SQL expression to order by; it comes from an area's own whitelist, never from input. */
  column: string;
  direction: 'asc' | 'desc';
}

/**
 * 000 convention 6: `sort=<field>,<asc|desc>` (direction optional, asc by default). Only the
 * fields an area lists can be sorted on, each backed by an index; anything else is a 400.
 */
export function parseSort(sort: string | string[] | undefined, sortable: Record<string, string>): SortKey[] {
  if (sort === undefined) return [];
  const values = (Array.isArray(sort) ? sort : [sort]).filter((value) => value.trim() !== '');
  return values.map((value) => {
    const [field = '', direction = 'asc', ...rest] = value.split(',').map((part) => part.trim());
    const normalized = direction.toLowerCase();
    const column = Object.hasOwn(sortable, field) ? sortable[field] : undefined;
    if (!column || rest.length > 0 || (normalized !== 'asc' && normalized !== 'desc')) {
      throw new ApiError(
        'INVALID_SORT',
        { sort: value, sortableFields: Object.keys(sortable) },
        `Cannot sort by "${value}": use <field>,<asc|desc> with one of ${Object.keys(sortable).join(', ')}`,
      );
    }
    return { column, direction: normalized };
  });
}

/**
 * The ORDER BY of a list: the given keys (or the list's default), then a unique tie-breaker so
 * pages never repeat or skip rows. The tie-breaker follows the last key's direction, so an index
 * on (key, id) serves either direction.
 */
export function orderBy(keys: SortKey[], fallback: SortKey[], tieBreaker: string): string {
  const effective = keys.length > 0 ? keys : fallback;
  const terms = effective.map((key) => `${key.column} ${key.direction} nulls ${key.direction === 'asc' ? 'last' : 'first'}`);
  return [...terms, `${tieBreaker} ${effective.at(-1)?.direction ?? 'asc'}`].join(', ');
}

export function applySort<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  keys: SortKey[],
  fallback: SortKey[],
  tieBreaker: string,
): SelectQueryBuilder<DB, TB, O> {
  return query.orderBy(sql.raw(orderBy(keys, fallback, tieBreaker)));
}

export interface FilteredList {
  /** The filtered query, before any select: `db.selectFrom('patients as p').where(...)`. */
  base: SelectQueryBuilder<never, never, object>;
  table: string;
  alias: string;
  tenantId: string;
  /** A substring search narrows the list: its matches are fixed first (see filteredPage). */
  searched: boolean;
  /**
   * Another filter narrows the list to few rows (a care-team member's patients, an assignee's
   * tasks): its matches are fixed first too, so they are read once, not once for the page and
   * again for the count. A list narrowed by neither is paged along its sort index and counted.
   */
  narrowed?: boolean;
  /**
   * Columns computed for each row of the page, beside its own: the related records composed in
   * SQL (a care team as JSON), so a page and everything it shows come in one round trip. They
   * refer to the row by `alias`.
   */
  extra?: RawBuilder<unknown>[];
  /**
   * The column naming each match's patient (`p.id`, `t.patient_id`), on a list a filter narrows or
   * a search: the total of such a list tells which patients match even when the page shows none of
   * them (a phone number's), so the statement also brings the first MATCH_BOUND matches' patients,
   * for the access log (`matches` of the page: see MATCHES).
   */
  patientOfMatch?: string;
  /**
   * The request's access record, written by the page's own statement (events/access.ts
   * shownRecord): the patients of its rows and of the matches its total names, and the total.
   * Needs `patientOfMatch`, a column of `table`, or `patientsOfPage`.
   */
  reading?: ReadRecording;
  /**
   * The patients a page's rows name where no column of `table` holds them (a calendar event's
   * patient participants): `select` reads them from the CTE `page` (its rows' `id`), `of` from
   * each row the statement returns, so the record and what it says it recorded agree.
   */
  patientsOfPage?: { select: RawBuilder<unknown>; of(row: Record<string, unknown>): readonly string[] };
}

/**
 * Up to this many matching patients are named in the access record of an answer whose total
 * discloses them; a total above it tells of a crowd, not of anyone, and the record keeps the count.
 */
export const MATCH_BOUND = 100;

/**
 * The patients an answer's total discloses, carried beside its page under a symbol, which the
 * serializer never writes: the access log reads it from the answer (http/access-log.ts).
 */
export const MATCHES = Symbol('matches');

/**
 * A page of a filtered list, whole rows of `list.alias` with its `extra` columns, and the total:
 * one statement, one round trip. The count and the page read the same filter; a page past the
 * end still brings the total (the count is the outer row, the page joined to it).
 *
 * A narrowed list's matches are fixed once, in a materialized CTE that the page and the count
 * share (one pass over them, not two). A substring search visits every match anyway (trigram
 * index, then a recheck of each row) whatever the page, and left to itself the planner may
 * misjudge a term (measured: "moore") and walk a sort index instead, testing every row of the
 * tenant (3 s at a million patients, not 20 ms). The CTE keeps only each match's id and sort
 * keys; the page's rows are read whole afterwards. A search is sent unprepared (its text varies
 * with its filters), every other list prepared once per connection (db/sql.ts). Either way
 * PostgreSQL plans it without looking at the term (db/database.ts forces generic plans, which
 * applies to unnamed statements too: measured with auto_explain, one estimate for every term);
 * the materialized CTE is what keeps a search on its trigram index whatever the term.
 */
export async function filteredPage<Row>(
  db: Kysely<never>,
  list: FilteredList,
  order: { keys: SortKey[]; fallback: SortKey[]; tieBreaker: string },
  paging: Paging,
): Promise<{ rows: Row[]; total: number; matches?: string[] }> {
  const alias = sql.raw(list.alias);
  const extra = list.extra?.length ? sql`, ${sql.join(list.extra)}` : sql``;
  const base = list.base as SelectQueryBuilder<Record<string, object>, string, object>;
  const patientColumn = list.patientOfMatch?.split('.').at(-1);
  const narrowed = list.searched || list.narrowed;
  let statement: RawBuilder<Row & { cairn_total: number; cairn_matches?: string[] | null }>;
  // The answer's access record, from the page and the total the statement has already: one round trip.
  const recorded = (patients: RawBuilder<unknown>) => {
    if (!list.reading || !(patientColumn || list.patientsOfPage)) return sql``;
    const matched =
      narrowed && patientColumn
        ? sql` UNION ALL SELECT unnest(total.cairn_matches) FROM total WHERE total.cairn_total <= ${MATCH_BOUND}`
        : sql``;
    const shows = {
      patients: sql`ARRAY(${list.patientsOfPage?.select ?? patients}${matched})`,
      matched: sql`(SELECT cairn_total FROM total)`,
    };
    return sql`, recorded AS (${shownRecord(list.reading, shows)})`;
  };
  if (narrowed) {
    const keys = (order.keys.length > 0 ? order.keys : order.fallback).map((key, index) => ({ ...key, name: `k${index}` }));
    const matches = base.select([
      sql.raw<string>(order.tieBreaker).as('id'),
      ...keys.map((key) => sql.raw<unknown>(key.column).as(key.name)),
      ...(list.patientOfMatch ? [sql.raw<string>(list.patientOfMatch).as('cairn_patient')] : []),
    ]);
    // The first matches' patients, read from the matches already fixed: at most MATCH_BOUND + 1 rows.
    const disclosed = list.patientOfMatch
      ? sql`, (SELECT array_agg(DISTINCT m.cairn_patient) FROM (SELECT cairn_patient FROM matches LIMIT ${MATCH_BOUND + 1}) AS m) AS cairn_matches`
      : sql``;
    const sortedBy = (source: string) =>
      sql.raw(
        orderBy(
          keys.map((key) => ({ ...key, column: `${source}.${key.name}` })),
          [],
          `${source}.id`,
        ),
      );
    // The matches' patients once, on the first row, and only when they will be named: on every row
    // of a page they were 20 copies of 101 ids to parse (1.7 MB of garbage a search).
    const matchesColumn = list.patientOfMatch
      ? sql`, CASE WHEN row_number() OVER (ORDER BY ${sortedBy('page')}) = 1 AND total.cairn_total <= ${MATCH_BOUND}
          THEN total.cairn_matches END AS cairn_matches`
      : sql``;
    statement = sql`${sql.raw(list.searched ? '' : PREPARED)}
      WITH matches AS MATERIALIZED (${matches}),
      page AS (SELECT matches.* FROM matches ORDER BY ${sortedBy('matches')} LIMIT ${paging.size} OFFSET ${offsetOf(paging)}),
      total AS (SELECT count(*) AS cairn_total${disclosed} FROM matches)${recorded(sql`SELECT cairn_patient FROM page`)}
      SELECT ${alias}.*${extra}, total.cairn_total${matchesColumn}
      FROM total
      LEFT JOIN (page JOIN ${sql.table(list.table)} AS ${alias} ON ${alias}.tenant_id = ${list.tenantId} AND ${alias}.id = page.id) ON true
      ORDER BY ${sortedBy('page')}`;
  } else {
    const page = applySort(base.selectAll(list.alias), order.keys, order.fallback, order.tieBreaker)
      .limit(paging.size)
      .offset(offsetOf(paging));
    statement = sql`${sql.raw(PREPARED)}
      WITH page AS (${page}),
      total AS (${base.select((eb) => eb.fn.countAll<number>().as('cairn_total'))})${recorded(sql`SELECT ${sql.ref(`page.${patientColumn}`)} FROM page`)}
      SELECT ${alias}.*${extra}, total.cairn_total
      FROM total
      LEFT JOIN page AS ${alias} ON true
      ORDER BY ${sql.raw(orderBy(order.keys, order.fallback, order.tieBreaker))}`;
  }
  const { rows } = await statement.execute(db);
  const total = Number(rows[0]?.cairn_total ?? 0);
  const matches = rows[0]?.cairn_matches;
  // An empty page is the count's row alone, its page columns null.
  const pageRows = rows.filter((row) => (row as { id?: unknown }).id !== null);
  const named = list.patientOfMatch && total <= MATCH_BOUND ? (matches ?? []) : undefined;
  if (list.reading && (patientColumn || list.patientsOfPage)) {
    const { record } = list.reading;
    const patientsOf = (row: Record<string, unknown>) => list.patientsOfPage?.of(row) ?? [row[patientColumn!] as string];
    for (const row of pageRows) for (const patient of patientsOf(row as Record<string, unknown>)) record.recorded.add(patient);
    for (const patient of (narrowed && named) || []) record.recorded.add(patient);
    record.counted = true;
  }
  return {
    rows: pageRows.map(({ cairn_total: _, cairn_matches: __, ...row }) => row as Row),
    total,
    ...(named ? { matches: named } : {}),
  };
}

export function offsetOf(paging: Paging): number {
  return paging.page * paging.size;
}

const SortState = Type.Object({ sorted: Type.Boolean(), unsorted: Type.Boolean(), empty: Type.Boolean() });

/** 000 "page object" (Spring's Page). */
export function PageObject<T extends TSchema>(item: T) {
  return Type.Object({
    content: Type.Array(item),
    pageable: Type.Object({
      sort: SortState,
      pageSize: Type.Integer(),
      pageNumber: Type.Integer(),
      offset: Type.Integer(),
      unpaged: Type.Boolean(),
      paged: Type.Boolean(),
    }),
    totalElements: Type.Integer(),
    totalPages: Type.Integer(),
    last: Type.Boolean(),
    first: Type.Boolean(),
    number: Type.Integer(),
    size: Type.Integer(),
    numberOfElements: Type.Integer(),
    empty: Type.Boolean(),
    sort: SortState,
  });
}

/** The patients a total discloses (filteredPage's `matches`), kept beside an answer for its access record. */
function withMatches<T extends object>(answer: T, matches: readonly string[] | undefined): T {
  if (matches) Object.defineProperty(answer, MATCHES, { value: matches, enumerable: false });
  return answer;
}

/** The patients an answer's total disclosed, when its list named them (MATCHES). */
export function matchesOf(answer: unknown): readonly string[] | undefined {
  return answer && typeof answer === 'object' ? (answer as { [MATCHES]?: readonly string[] })[MATCHES] : undefined;
}

export function pageObject<T>(content: T[], totalElements: number, paging: Paging, sorted: boolean, matches?: readonly string[]) {
  const totalPages = Math.ceil(totalElements / paging.size);
  const sort = { sorted, unsorted: !sorted, empty: !sorted };
  return withMatches(
    {
      content,
      pageable: {
        sort,
        pageSize: paging.size,
        pageNumber: paging.page,
        offset: offsetOf(paging),
        unpaged: false,
        paged: true,
      },
      totalElements,
      totalPages,
      last: paging.page >= totalPages - 1,
      first: paging.page === 0,
      number: paging.page,
      size: paging.size,
      numberOfElements: content.length,
      empty: content.length === 0,
      sort,
    },
    matches,
  );
}

export const MetaInfo = Type.Object({
  page: Type.Integer(),
  pageSize: Type.Integer(),
  totalElements: Type.Integer(),
  numberOfElements: Type.Integer(),
  totalPages: Type.Integer(),
  firstPage: Type.Boolean(),
  lastPage: Type.Boolean(),
});

/** 000 "data and meta", with the totalPages/firstPage/lastPage that production adds (DECISIONS §3). */
export function DataAndMeta<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), metaInfo: MetaInfo });
}

export function dataAndMeta<T>(data: T[], totalElements: number, paging: Paging, matches?: readonly string[]) {
  const totalPages = Math.ceil(totalElements / paging.size);
  return withMatches(
    {
      data,
      metaInfo: {
        page: paging.page,
        pageSize: paging.size,
        totalElements,
        numberOfElements: data.length,
        totalPages,
        firstPage: paging.page === 0,
        lastPage: paging.page >= totalPages - 1,
      },
    },
    matches,
  );
}

/**
 * Opaque page tokens (token pages, export cursors): the state of the next page as JSON, signed
 * with HMAC-SHA256 so a client can hand it back but not forge or alter it. A tampered, truncated
 * or foreign token is 400 INVALID_PAGE_TOKEN (DECISIONS §3), never a 500.
 */
export class PageTokens {
  private readonly key: Buffer;

  constructor(secret: string) {
    // A key of its own, derived from the server's secret: a page token can never pass as a JWT.
    this.key = createHmac('sha256', secret).update('cairn page tokens').digest();
  }

  sign(state: object): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${body}.${this.mac(body)}`;
  }

  read<T extends object>(token: string): T {
    const [body = '', mac = '', ...rest] = token.split('.');
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (rest.length > 0 || given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken();
    try {
      const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
      if (typeof state !== 'object' || state === null || Array.isArray(state)) throw invalidToken();
      return state as T;
    } catch {
      throw invalidToken();
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

function invalidToken(): ApiError {
  return new ApiError('INVALID_PAGE_TOKEN', {}, 'The page token is not one this server issued, or it was altered');
}

/** A key of a keyset order: its SQL (from the area's whitelist, never from input) and how to read it off a row. */
export interface KeysetKey<Row> {
  column: string;
  direction: 'asc' | 'desc';
  valueOf(row: Row): string | number | Date;
}

/**
 * A page of a list that can grow without bound (export, chat), by keyset: the rows after
 * `after` (the key values of the last row the client saw) in the keys' order, whose last key
 * must be unique (the id). The index seeks straight to the position, so page 1,000 costs what
 * page 1 does, and rows written meanwhile are neither skipped nor repeated. Keys must not be
 * null, and must survive a trip through a token's JSON unchanged: ids, numbers, and timestamps
 * Cairn writes itself (from JavaScript, so in whole milliseconds). `next` is the position after
 * this page, or null when there is no more.
 */
export async function keysetPage<DB, TB extends keyof DB, Row>(
  query: SelectQueryBuilder<DB, TB, Row>,
  keys: KeysetKey<Row>[],
  after: readonly unknown[] | undefined,
  size: number,
): Promise<{ rows: Row[]; next: unknown[] | null }> {
  let page = query;
  if (after) {
    if (after.length !== keys.length) throw invalidToken();
    const ascending = keys[0]?.direction === 'asc';
    if (keys.every((key) => key.direction === keys[0]?.direction)) {
      // One row comparison, (k1, k2) < (v1, v2): the index seeks to it. The same test written as
      // (k1 < v1) or (k1 = v1 and k2 < v2) is only a filter, and page 500 read the 10,000 rows above it.
      const columns = sql.join(keys.map((key) => sql.raw(key.column)));
      page = page.where(
        sql<boolean>`(${columns}) ${sql.raw(ascending ? '>' : '<')} (${sql.join(after.map((value) => sql`${value}`))})`,
      );
    } else {
      // Mixed directions have no row comparison: (k1 > v1) or (k1 = v1 and k2 < v2) or ..., with
      // the first key's bound beside it, which the index seeks to.
      const branches = keys.map((key, index) =>
        sql.join(
          [
            ...keys.slice(0, index).map((earlier, j) => sql`${sql.raw(earlier.column)} = ${after[j]}`),
            sql`${sql.raw(key.column)} ${sql.raw(key.direction === 'asc' ? '>' : '<')} ${after[index]}`,
          ],
          sql` and `,
        ),
      );
      const first = keys[0] as KeysetKey<Row>;
      page = page.where(
        sql<boolean>`${sql.raw(first.column)} ${sql.raw(ascending ? '>=' : '<=')} ${after[0]} and (${sql.join(branches, sql` or `)})`,
      );
    }
  }
  const ordered = page.orderBy(sql.raw(keys.map((key) => `${key.column} ${key.direction}`).join(', ')));
  // One row more than the page says whether another page follows, without a count.
  const rows = (await ordered.limit(size + 1).execute()) as Row[];
  const more = rows.length > size;
  const shown = rows.slice(0, size);
  const last = shown.at(-1);
  return { rows: shown, next: more && last ? keys.map((key) => serializable(key.valueOf(last))) : null };
}

function serializable(value: string | number | Date): string | number {
  return value instanceof Date ? value.toISOString() : value;
}
