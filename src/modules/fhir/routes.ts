import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requestOrigin } from '../../files/links.ts';
import { type Disclosure, disclose } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import { compact, type FhirResource } from '../../http/fhir.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ApiError } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { capabilityStatement } from './capability.ts';
import { FHIR_JSON, fhirErrorHandler, fhirResponses } from './outcome.ts';
import { findRow, parseSearch, searchRows } from './store.ts';

const tags = ['FHIR R4'];
const BASE = '/:tenantName/:instanceName/fhir/R4';

/** FHIR ids are up to 64 of [A-Za-z0-9-.]; Cairn's are uuids, so any other names nothing (404). */
const ReadParams = Type.Object({ ...InstanceParams.properties, id: Type.String({ maxLength: 64 }) });
/** Search parameters are FHIR's, read by the search itself: unknown ones are ignored, as FHIR allows. */
const SearchQuery = Type.Object({}, { additionalProperties: true });

/**
 * What a resource's answers disclose, for the access log: the patients its rows are about, named
 * by the handler; a read of a Patient by id names the id asked for even when refused or not found.
 */
function disclosureOf(resource: FhirResource): Disclosure | { none: string } {
  if ('none' in resource.patient) return { none: resource.patient.none };
  const isPatient = 'column' in resource.patient && resource.patient.column === 'id';
  return {
    resource: resource.logAs,
    patients: (request) => request.disclosing?.patients ?? (isPatient ? [(request.params as { id?: string }).id ?? ''] : []),
    records: (request) => request.disclosing?.records ?? [],
  };
}

/** The FHIR R4 API of an instance (docs/fhir.md): read-only, over the same store, errors as OperationOutcome. */
const fhirRoutes: AreaPlugin = async (app, { services, fhir }) => {
  app.setErrorHandler(fhirErrorHandler);
  const baseOf = (request: FastifyRequest) => {
    const { tenantName, instanceName } = request.params as { tenantName: string; instanceName: string };
    return `${requestOrigin(request)}/${tenantName}/${instanceName}/fhir/R4`;
  };
  const resources = [...fhir.values()];

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
      if (!instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName: request.params.instanceName });
      reply.type(FHIR_JSON);
      return capabilityStatement(resources, baseOf(request), '1.0.0', services.clock.now());
    },
  );

  for (const resource of resources) {
    const shown = resource.patient;
    const patientsOf = (rows: Record<string, unknown>[]) =>
      'column' in shown
        ? rows.map((row) => row[shown.column])
        : 'of' in shown
          ? rows.flatMap((row) => shown.of(row as never))
          : [];
    const discloses = disclosureOf(resource);

    app.get(
      `${BASE}/${resource.type}/:id`,
      {
        config: needs(resource.permission, { discloses }),
        schema: {
          tags,
          summary: `A ${resource.type}${resource.profile ? ` (${profileName(resource.profile)})` : ''}, by id`,
          params: ReadParams,
          response: fhirResponses(200, 400, 401, 403, 404, 429, 503),
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        const row = await findRow(contextOf(request), resource, id);
        if (!row) throw new ApiError(resource.notFound, { id });
        disclose(request, patientsOf([row]), [row.id]);
        reply.type(FHIR_JSON);
        return resource.toFhir(row as never);
      },
    );

    app.get(
      `${BASE}/${resource.type}`,
      {
        config: needs(resource.permission, { discloses }),
        schema: {
          tags,
          summary: `Search ${resource.type} resources: a searchset Bundle, paged by its next link`,
          description: `${Object.keys(resource.params)
            .map((name) => `\`${name}\``)
            .join(
              ', ',
            )}, \`_id\`, \`_lastUpdated\`, \`_count\` (20 by default, at most 1000), \`_summary=count\`. Dates take eq, ne, lt, gt, le, ge. A repeated parameter is AND, a comma OR. Parameters not served are ignored and left out of the \`self\` link.`,
          params: InstanceParams,
          querystring: SearchQuery,
          response: fhirResponses(200, 400, 401, 403, 404, 429, 503),
        },
      },
      async (request, reply) => {
        const base = baseOf(request);
        const ctx = contextOf(request);
        const search = parseSearch(resource, request.query as Record<string, unknown>, ctx.scope.tenantId);
        const link = (after?: string) => {
          const params = new URLSearchParams(search.applied);
          if (after) params.set('_cursor', after);
          const text = params.toString();
          return `${base}/${resource.type}${text ? `?${text}` : ''}`;
        };
        const self = { relation: 'self', url: link(search.after) };
        const found = await searchRows(ctx, resource, search);
        reply.type(FHIR_JSON);
        if ('total' in found) return { resourceType: 'Bundle', type: 'searchset', total: found.total, link: [self] };
        disclose(request, patientsOf(found.rows));
        const last = found.rows.at(-1);
        return compact({
          resourceType: 'Bundle',
          type: 'searchset',
          link: [self, ...(found.hasNext && last ? [{ relation: 'next', url: link(last.id) }] : [])],
          entry: found.rows.map((row) => ({
            fullUrl: `${base}/${resource.type}/${row.id}`,
            resource: resource.toFhir(row as never),
            search: { mode: 'match' },
          })),
        });
      },
    );
  }
};

/** `us-core-patient` from its profile's URL. */
const profileName = (profile: string) => profile.slice(profile.lastIndexOf('/') + 1);

export default fhirRoutes;
