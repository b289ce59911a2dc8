import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Formation } from '../../formation/schemas.ts';
import type { Context } from '../../http/context.ts';
import { type FhirResource, inCompartment, invalidParam, isUuid, nothing, paramsOf } from '../../http/fhir.ts';
import { MATCH_BOUND } from '../../http/pagination.ts';
import { confinement, type Interaction } from '../../http/scopes.ts';

/**
 * A resource's reads: one statement each, on the table the area declared, in the tenant (and the
 * instance, for an instance's records). Searches page in id order from a cursor (`_cursor`, from a
 * `next` link), on the table's key (tenant, id) or an index leading with tenant, instance and id,
 * so page 1,000 costs what page 1 does; one row more than the page is read to know there is a next.
 *
 * A type several areas serve (Communication: chat, SMS, email) is read from each of its sources the
 * caller may read: one statement per source, their pages merged by id, so its page costs what each
 * source's page does. Ids are uuids, unique across tables: one id names one record in one source.
 */

type Row = Record<string, unknown> & { id: string };

/** A row and the source it came from, which maps it. */
export interface Found {
  source: FhirResource;
  row: Row;
}

export const DEFAULT_COUNT = 20;
export const MAX_COUNT = 1000;

const formedByFormation = new WeakMap<Formation, Map<FhirResource, FhirResource>>();

/**
 * The resource as the instance's formation maps it (a CDT declared as an Observation), or the
 * declaration itself: built once per formation, which the services keep per version.
 */
export async function formedOf(ctx: Context, resource: FhirResource): Promise<FhirResource> {
  if (!resource.formed) return resource;
  const formation = await ctx.formation();
  const formed = formedByFormation.get(formation) ?? new Map<FhirResource, FhirResource>();
  formedByFormation.set(formation, formed);
  const mapped = formed.get(resource) ?? resource.formed(formation);
  formed.set(resource, mapped);
  return mapped;
}

/**
 * The one source of every read's rows: the table (the area's, a name not a type known here), in the
 * tenant and instance, and for a token confined to a patient (a `patient/` scope) that patient's
 * compartment; `compartment` is one kept for later (a bulk export's, whose job has no token).
 */
function rowsOf(ctx: Context, resource: FhirResource, interaction: Interaction, compartment?: string) {
  const db = ctx.db as unknown as Kysely<Record<string, Row>>;
  let select = db.selectFrom(`${resource.table} as r`).where('r.tenant_id', '=', ctx.scope.tenantId);
  if (resource.instanceScoped) select = select.where('r.instance_id', '=', ctx.scope.instanceId);
  for (const condition of resource.where ?? []) select = select.where(condition);
  const confined = compartment !== undefined ? { patient: compartment } : confinement(ctx.caller, resource.type, interaction);
  if (confined) select = select.where(inCompartment(resource, confined.patient, ctx.scope.tenantId));
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
  return (await withColumns(ctx, resource, rowsOf(ctx, resource, 'r').selectAll('r'))
    .where('r.id', '=', id)
    .executeTakeFirst()) as Row | undefined;
}

/** The rows of these ids (an `_include`'s), in one statement; ids that are not uuids name nothing. */
export async function findRows(ctx: Context, resource: FhirResource, ids: readonly string[]): Promise<Row[]> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return [];
  return (await withColumns(ctx, resource, rowsOf(ctx, resource, 'r').selectAll('r'))
    .where('r.id', 'in', wanted)
    .execute()) as Row[];
}

/** The record of a read by id in whichever of the sources holds it (each looked in at once). */
export async function findInSources(ctx: Context, sources: readonly FhirResource[], id: string): Promise<Found | undefined> {
  const rows = await Promise.all(sources.map((source) => findRow(ctx, source, id)));
  const index = rows.findIndex((row) => row !== undefined);
  return index < 0 ? undefined : { source: sources[index]!, row: rows[index]! };
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
  /** The patient whose compartment a bulk export kept (its job searches without a token). */
  compartment?: string;
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
 * do, and left out of the Bundle's `self` link, which lists what was applied. `names` are the
 * parameters of its type when other sources serve it too: one of them this source does not serve
 * makes it match nothing.
 */
export function parseSearch(
  resource: FhirResource,
  query: Record<string, unknown>,
  tenantId: string,
  names: Iterable<string> = Object.keys(paramsOf(resource)),
): Search {
  const search: Search = { applied: [], where: [], count: DEFAULT_COUNT, summaryCount: false, after: undefined };
  const params = paramsOf(resource);
  for (const name of names) {
    const param = params[name];
    for (const value of valuesOf(query, name)) {
      const alternatives = value.split(',').map((part) => part.trim());
      if (alternatives.some((part) => part === '')) throw invalidParam(name, 'has an empty value');
      search.where.push(
        param
          ? sql<SqlBool>`(${sql.join(
              alternatives.map((part) => param.where(part, tenantId)),
              sql` OR `,
            )})`
          : nothing,
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

/**
 * A type's search, each of its sources' own over the parameters any of them serves: every source
 * reads every value, so a bad one is a 400 whichever sources the caller may read.
 */
export function parseTypeSearch(
  sources: readonly FhirResource[],
  query: Record<string, unknown>,
  tenantId: string,
): Map<FhirResource, Search> {
  const names = new Set(sources.flatMap((source) => Object.keys(paramsOf(source))));
  return new Map(sources.map((source) => [source, parseSearch(source, query, tenantId, names)]));
}

/** The rows of a search's page (and whether there is a next), or its total for `_summary=count`. */
export async function searchRows(
  ctx: Context,
  resource: FhirResource,
  search: Search,
): Promise<{ total: number; matched: Row[] } | { rows: Row[]; hasNext: boolean }> {
  let select = rowsOf(ctx, resource, 's', search.compartment);
  for (const condition of search.where) select = select.where(condition);
  if (search.summaryCount) {
    const { total } = await select.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
    // A small count tells who matches (a phone's patient): those records are read for the access log.
    const few = Number(total) > 0 && Number(total) <= MATCH_BOUND;
    const matched = few ? ((await withColumns(ctx, resource, select.selectAll('r')).limit(MATCH_BOUND).execute()) as Row[]) : [];
    return { total: Number(total), matched };
  }
  if (search.after) select = select.where('r.id', '>', search.after);
  const rows = (await withColumns(ctx, resource, select.selectAll('r'))
    .orderBy('r.id')
    .limit(search.count + 1)
    .execute()) as Row[];
  return { rows: rows.slice(0, search.count), hasNext: rows.length > search.count };
}

/**
 * A page of a type over its sources (their searches alike but for their conditions): each source's
 * page after the cursor, one statement each, merged in id order and cut to the count; there is a
 * next when rows were left over, here or in a source. Or the sum of their totals, for `_summary=count`.
 */
export async function searchSources(
  ctx: Context,
  searches: ReadonlyMap<FhirResource, Search>,
): Promise<{ total: number; matched: Found[] } | { found: Found[]; hasNext: boolean }> {
  const pages = await Promise.all(
    [...searches].map(async ([source, search]) => ({ source, page: await searchRows(ctx, source, search) })),
  );
  const found: Found[] = [];
  const matched: Found[] = [];
  let total = 0;
  let more = false;
  for (const { source, page } of pages) {
    if ('total' in page) {
      total += page.total;
      matched.push(...page.matched.map((row) => ({ source, row })));
    } else {
      found.push(...page.rows.map((row) => ({ source, row })));
      more ||= page.hasNext;
    }
  }
  const { count, summaryCount } = searches.values().next().value as Search;
  if (summaryCount) return { total, matched: total <= MATCH_BOUND ? matched : [] };
  // Uuids in PostgreSQL's order: their lower-case text's.
  found.sort((a, b) => (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0));
  return { found: found.slice(0, count), hasNext: more || found.length > count };
}
