import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requestOrigin } from '../../files/links.ts';
import { type Disclosure, disclose } from '../../http/access-log.ts';
import { type Context, contextOf } from '../../http/context.ts';
import { compact, type FhirResource, paramsOf, patientsOfRow } from '../../http/fhir.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { heldOf, needs, needsAnyOf } from '../../http/route-access.ts';
import { ApiError } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { oauthEndpoints } from '../apps/index.ts';
import { capabilityStatement } from './capability.ts';
import { acceptSearchForms, mergeParams, negotiateFormat } from './format.ts';
import { included, includeNames, parseIncludes } from './include.ts';
import { FHIR_JSON, fhirResponses, useFhirErrors } from './outcome.ts';
import { parseRevIncludes, revincluded } from './revinclude.ts';
import { type Found, findInSources, formedOf, parseTypeSearch, searchSources } from './store.ts';

const tags = ['FHIR R4'];
/** Every instance's FHIR base: its routes, and the prefix of what is not served there (not-served.ts). */
export const FHIR_BASE = '/:tenantName/:instanceName/fhir/R4';
const BASE = FHIR_BASE;

/** FHIR ids are up to 64 of [A-Za-z0-9-.]; Cairn's are uuids, so any other names nothing (404). */
const ReadParams = Type.Object({ ...InstanceParams.properties, id: Type.String({ maxLength: 64 }) });
/** Search parameters are FHIR's, read by the search itself: unknown ones are ignored, as FHIR allows. */
const SearchQuery = Type.Object({}, { additionalProperties: true });
/** A search by POST: the same parameters as a form (R4 http.html), merged with the URL's. */
const SearchForm = Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
  description: 'Search parameters as a form (application/x-www-form-urlencoded), as they would be in the URL',
});

/**
 * Several areas may serve one type, each from its own table with its own permission and mapping
 * (Communication: chat, SMS, email); they must show it alike: one profile, one name in the access
 * log, whether it carries patients' data, each parameter of one FHIR type. Checked at start-up.
 */
function checkSources(type: string, sources: readonly FhirResource[]): void {
  const [first] = sources as [FhirResource];
  const params = new Map<string, string>();
  for (const source of sources) {
    if (
      source.profile !== first.profile ||
      source.logAs !== first.logAs ||
      'none' in source.patient !== 'none' in first.patient
    ) {
      throw new Error(`FHIR ${type}: its sources differ in profile, logAs or whether they carry patients' data`);
    }
    for (const [name, param] of Object.entries(paramsOf(source))) {
      if ((params.get(name) ?? param.type) !== param.type) throw new Error(`FHIR ${type}: parameter ${name} has two types`);
      params.set(name, param.type);
    }
  }
}

/** The patients a source's rows are about, for the access log. */
function patientsOf(found: readonly Found[]): unknown[] {
  return found.flatMap(({ source, row }) => patientsOfRow(source, row));
}

/**
 * What a type's answers disclose, for the access log: the patients its rows are about, named by
 * the handler; a read of a Patient by id names the id asked for even when refused or not found.
 */
function disclosureOf(source: FhirResource): Disclosure | { none: string } {
  if ('none' in source.patient) return { none: source.patient.none };
  const isPatient = 'column' in source.patient && source.patient.column === 'id';
  return {
    resource: source.logAs,
    patients: (request) => request.disclosing?.patients ?? (isPatient ? [(request.params as { id?: string }).id ?? ''] : []),
    records: (request) => request.disclosing?.records ?? [],
  };
}

/** The FHIR R4 API of an instance (docs/fhir.md): read-only, over the same store, errors as OperationOutcome. */
const fhirRoutes: AreaPlugin = async (app, { services, fhir }) => {
  useFhirErrors(app);
  app.addHook('onRequest', negotiateFormat);
  acceptSearchForms(app);
  const baseOf = (request: FastifyRequest) => {
    const { tenantName, instanceName } = request.params as { tenantName: string; instanceName: string };
    return `${requestOrigin(request)}/${tenantName}/${instanceName}/fhir/R4`;
  };

  app.get(
    `${BASE}/metadata`,
    {
      config: { access: { public: true } },
      schema: {
        tags,
        summary: 'The CapabilityStatement: what this FHIR API serves (no token needed)',
        params: InstanceParams,
        response: fhirResponses(200, 400, 404, 503),
      },
    },
    async (request, reply) => {
      // Open, but only for an instance there is.
      const tenant = await services.tenant(request.params.tenantName);
      const instance = tenant && (await services.instance(tenant.id, request.params.instanceName));
      if (!tenant || !instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName: request.params.instanceName });
      reply.type(FHIR_JSON);
      return capabilityStatement(
        fhir,
        { base: baseOf(request), ...oauthEndpoints(services, request, tenant.name, instance.name) },
        '1.0.0',
        services.clock.now(),
      );
    },
  );

  for (const [type, sources] of fhir) {
    checkSources(type, sources);
    const [first] = sources as [FhirResource];
    const permissions = [...new Set(sources.map((source) => source.permission))];
    const discloses = disclosureOf(first);
    // One permission is checked before the handler; of several, the caller is served the sources it may read.
    const access = (scope: `${string}.${'r' | 's'}`) =>
      permissions.length === 1 ? needs(first.permission, { discloses, scope }) : needsAnyOf(permissions, { discloses, scope });
    // The sources as the instance's formation maps them (a CDT's Observation), and those the caller reads.
    const formed = (ctx: Context) => Promise.all(sources.map((source) => formedOf(ctx, source)));
    const readable = (ctx: Context, all: readonly FhirResource[]) => {
      const held = heldOf(ctx.can, permissions);
      return all.filter((source) => held.includes(source.permission));
    };

    app.get(
      `${BASE}/${type}/:id`,
      {
        config: access(`${type}.r`),
        schema: {
          tags,
          summary: `A ${type}${first.profile ? ` (${profileName(first.profile)})` : ''}, by id`,
          params: ReadParams,
          response: fhirResponses(200, 400, 401, 403, 404, 429, 503),
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const ctx = contextOf(request);
        const from = readable(ctx, await formed(ctx));
        const found = await findInSources(ctx, from, id);
        // Not in any source the caller reads: the first one's code (TASK_NOT_FOUND, as Cairn's own read answers).
        if (!found) throw new ApiError(from[0]!.notFound, { id });
        disclose(request, patientsOf([found]), [found.row.id]);
        reply.type(FHIR_JSON);
        return found.source.toFhir(found.row as never, { base: baseOf(request) });
      },
    );

    // One search, by GET or by POST with a form: R4 http.html has both answer alike.
    const searchType = async (request: FastifyRequest, reply: FastifyReply) => {
      const base = baseOf(request);
      const ctx = contextOf(request);
      const all = await formed(ctx);
      const from = readable(ctx, all);
      const query =
        request.method === 'POST'
          ? mergeParams(Object.entries(request.query as object), Object.entries((request.body as object | undefined) ?? {}))
          : (request.query as Record<string, unknown>);
      const searches = parseTypeSearch(all, query, ctx.scope.tenantId);
      const includes = parseIncludes(type, sources, [query._include ?? []].flat().map(String));
      // The sources' searches differ only in their conditions: the links are any one's.
      const search = searches.get(all[0]!)!;
      const revIncludes = parseRevIncludes(query._revinclude);
      // The links keep `_revinclude` as they keep the parameters applied.
      search.applied.push(...revIncludes.map((value): [string, string] => ['_revinclude', value]));
      // Links are GETs whichever way the search came: a client pages by following them.
      const link = (after?: string) => {
        const params = new URLSearchParams([
          ...search.applied,
          ...includes.map(({ value }): [string, string] => ['_include', value]),
        ]);
        if (after) params.set('_cursor', after);
        const text = params.toString();
        return `${base}/${type}${text ? `?${text}` : ''}`;
      };
      const self = { relation: 'self', url: link(search.after) };
      const page = await searchSources(ctx, new Map(from.map((source) => [source, searches.get(source)!])));
      reply.type(FHIR_JSON);
      if ('total' in page) {
        // The count alone discloses who matches when they are few: the access log names them.
        disclose(request, patientsOf(page.matched));
        return { resourceType: 'Bundle', type: 'searchset', total: page.total, link: [self] };
      }
      const extra = await included(ctx, fhir, includes, page.found);
      const provenance = await revincluded(ctx, revIncludes, page.found, base);
      disclose(request, [...patientsOf([...page.found, ...extra]), ...provenance.patients]);
      const last = page.found.at(-1);
      const entry = (mode: 'match' | 'include') => (found: Found) => ({
        fullUrl: `${base}/${found.source.type}/${found.row.id}`,
        resource: found.source.toFhir(found.row as never, { base }),
        search: { mode },
      });
      return compact({
        resourceType: 'Bundle',
        type: 'searchset',
        link: [self, ...(page.hasNext && last ? [{ relation: 'next', url: link(last.row.id) }] : [])],
        entry: [...page.found.map(entry('match')), ...extra.map(entry('include')), ...provenance.entries],
      });
    };
    const searchDescription = `${[...new Set(sources.flatMap((source) => Object.keys(source.params)))]
      .map((name) => `\`${name}\``)
      .join(
        ', ',
      )}, \`_id\`, \`_lastUpdated\`, \`_count\` (20 by default, at most 1000), \`_summary=count\`, \`_include\` (${includeNames(type, sources).join(', ') || 'none'}). Dates take eq, ne, lt, gt, le, ge. A repeated parameter is AND, a comma OR. Parameters not served are ignored and left out of the \`self\` link.`;

    app.get(
      `${BASE}/${type}`,
      {
        config: access(`${type}.s`),
        schema: {
          tags,
          summary: `Search ${type} resources: a searchset Bundle, paged by its next link`,
          description: searchDescription,
          params: InstanceParams,
          querystring: SearchQuery,
          response: fhirResponses(200, 400, 401, 403, 404, 429, 503),
        },
      },
      searchType,
    );

    app.post(
      `${BASE}/${type}/_search`,
      {
        // A search sent as POST is a read: Idempotency-Key does not keep its Bundle (patient data)
        // for a day, nor answer its refusals outside FHIR's error format.
        config: { ...access(`${type}.s`), idempotency: false },
        schema: {
          tags,
          summary: `Search ${type} resources by POST: the parameters as a form, answered as the GET search`,
          description: `${searchDescription} The form's parameters and the URL's are one search (a name in both is AND); the Bundle's links are GET searches.`,
          params: InstanceParams,
          querystring: SearchQuery,
          consumes: ['application/x-www-form-urlencoded'],
          body: SearchForm,
          response: fhirResponses(200, 400, 401, 403, 404, 413, 415, 429, 503),
        },
      },
      searchType,
    );
  }
};

/** `us-core-patient` from its profile's URL. */
const profileName = (profile: string) => profile.slice(profile.lastIndexOf('/') + 1);

export default fhirRoutes;
