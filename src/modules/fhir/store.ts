import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Context } from '../../http/context.ts';
import { commonParams, type FhirResource, invalidParam, isUuid } from '../../http/fhir.ts';

/**
 * A resource's reads: one statement each, on the table the area declared, in the tenant (and the
 * instance, for an instance's records). Searches page in id order from a cursor (`_cursor`, from a
 * `next` link), on the table's key (tenant, id) or an index leading with tenant, instance and id,
 * so page 1,000 costs what page 1 does; one row more than the page is read to know there is a next.
 */

type Row = Record<string, unknown> & { id: string };

export const DEFAULT_COUNT = 20;
export const MAX_COUNT = 1000;

/** The table is the area's: a name, not a type known here. */
function rowsOf(ctx: Context, resource: FhirResource) {
  const db = ctx.db as unknown as Kysely<Record<string, Row>>;
  let select = db.selectFrom(`${resource.table} as r`).where('r.tenant_id', '=', ctx.scope.tenantId);
  if (resource.instanceScoped) select = select.where('r.instance_id', '=', ctx.scope.instanceId);
  for (const condition of resource.where ?? []) select = select.where(condition);
  return select;
}

/** The columns the resource composes besides its row's. */
function withColumns<S extends { select: (column: never) => S }>(ctx: Context, resource: FhirResource, select: S): S {
  let composed = select;
  for (const column of resource.columns?.(ctx.scope.tenantId) ?? []) composed = composed.select(column as never);
  return composed;
}

/** The row of a read by id, or undefined (an id that is not a uuid names nothing). */
export async function findRow(ctx: Context, resource: FhirResource, id: string): Promise<Row | undefined> {
  if (!isUuid(id)) return undefined;
  return (await withColumns(ctx, resource, rowsOf(ctx, resource).selectAll('r')).where('r.id', '=', id).executeTakeFirst()) as
    | Row
    | undefined;
}

export interface Search {
  /** The parameters applied, as given, for the `self` link. */
  applied: [string, string][];
  where: RawBuilder<SqlBool>[];
  count: number;
  /** `_summary=count`: the total only. */
  summaryCount: boolean;
  /** The id after which the page starts. */
  after: string | undefined;
}

/** The query's values of a parameter, repeated or not. */
function valuesOf(query: Record<string, unknown>, name: string): string[] {
  const value = query[name];
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * A search's parameters: each the resource serves (a repeated one is AND, a comma within one OR),
 * `_count`, `_summary=count` and `_cursor`. One it does not serve is ignored, as FHIR lets a server
 * do, and left out of the Bundle's `self` link, which lists what was applied.
 */
export function parseSearch(resource: FhirResource, query: Record<string, unknown>, tenantId: string): Search {
  const search: Search = { applied: [], where: [], count: DEFAULT_COUNT, summaryCount: false, after: undefined };
  for (const [name, param] of Object.entries({ ...commonParams, ...resource.params })) {
    for (const value of valuesOf(query, name)) {
      const alternatives = value.split(',').map((part) => part.trim());
      if (alternatives.some((part) => part === '')) throw invalidParam(name, 'has an empty value');
      search.where.push(
        sql<SqlBool>`(${sql.join(
          alternatives.map((part) => param.where(part, tenantId)),
          sql` OR `,
        )})`,
      );
      search.applied.push([name, value]);
    }
  }
  const [count] = valuesOf(query, '_count');
  if (count !== undefined) {
    const parsed = Number(count);
    if (!Number.isInteger(parsed) || parsed < 0) throw invalidParam('_count', 'must be a whole number');
    search.count = Math.min(parsed, MAX_COUNT);
    search.applied.push(['_count', String(search.count)]);
  }
  const [summary] = valuesOf(query, '_summary');
  if (summary === 'count') {
    search.summaryCount = true;
    search.applied.push(['_summary', 'count']);
  } else if (summary !== undefined && summary !== 'false') throw invalidParam('_summary', 'only count is served');
  const [cursor] = valuesOf(query, '_cursor');
  if (cursor !== undefined) {
    if (!isUuid(cursor)) throw invalidParam('_cursor', 'is not a cursor this server gave');
    search.after = cursor;
  }
  return search;
}

/** The rows of a search's page (and whether there is a next), or its total for `_summary=count`. */
export async function searchRows(ctx: Context, resource: FhirResource, search: Search) {
  let select = rowsOf(ctx, resource);
  for (const condition of search.where) select = select.where(condition);
  if (search.summaryCount) {
    const { total } = await select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    return { total: Number(total) };
  }
  if (search.after) select = select.where('r.id', '>', search.after);
  const rows = (await withColumns(ctx, resource, select.selectAll('r'))
    .orderBy('r.id')
    .limit(search.count + 1)
    .execute()) as Row[];
  return { rows: rows.slice(0, search.count), hasNext: rows.length > search.count };
}
