import type { FastifyRequest } from 'fastify';
import type { Api, AreaPlugin } from '../../http/plugin.ts';
import { ApiError } from '../../wire/errors.ts';
import { useFhirErrors } from './outcome.ts';
import { PROVENANCE } from './provenance.ts';

/**
 * What answers under the FHIR base when no route does, registered with the base as its prefix so
 * that Fastify sends this path's misses here rather than to the app's not-found handler: an
 * OperationOutcome (outcome.ts), never the care-management error array. It is decided in
 * onRequest, before a body is read, so a create's FHIR JSON body is not refused as an unknown
 * media type first.
 *
 *  - a path some route serves by another method (`POST Patient`, `PUT`, `DELETE Patient/{id}`): 405
 *    with `Allow` naming those methods;
 *  - the base itself, a system interaction or operation (`POST [base]`, `_history`, `$everything`),
 *    and any other path under a type Cairn serves (`Patient/{id}/_history`, `GET Binary`): 405;
 *  - a resource type Cairn does not serve: 404 FHIR_TYPE_NOT_SUPPORTED;
 *  - anything else: 404 ROUTE_NOT_FOUND.
 */

/** The methods a FHIR interaction is sent with (R4 http.html). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** R4's resource type names are upper camel case; anything else under the base is no type. */
const TYPE_NAME = /^[A-Z][A-Za-z]*$/;

function notServed(app: Api, types: ReadonlySet<string>, request: FastifyRequest): ApiError {
  const { method } = request;
  const path = request.url.split('?')[0]!;
  const [, , , , , ...segments] = path.split('/');
  const under = segments.filter(Boolean);
  const relative = under.join('/');
  const allowed = METHODS.filter((other) => other !== method && app.findRoute({ method: other, url: path }) !== null);
  const [first] = under;
  const systemLevel = first === undefined || first.startsWith('_') || first.startsWith('$');
  if (allowed.length > 0 || systemLevel || (first && types.has(first))) {
    return new ApiError(
      'FHIR_INTERACTION_NOT_SUPPORTED',
      { method, path: relative, allowed },
      `${method} ${relative || '[base]'} is not served: this FHIR API is read-only${allowed.length > 0 ? ` (it serves ${allowed.join(', ')} here)` : ''}`,
      // RFC 9110 §15.5.6: a 405 names the methods the resource serves, none if none.
      { Allow: allowed.join(', ') },
    );
  }
  if (first && TYPE_NAME.test(first)) {
    return new ApiError('FHIR_TYPE_NOT_SUPPORTED', { type: first }, `This FHIR API serves no ${first} (see metadata)`);
  }
  return new ApiError('ROUTE_NOT_FOUND', { method, path: relative });
}

/** Registered with `prefix` the FHIR base: every miss under it. */
const notServedRoutes: AreaPlugin = async (app, { fhir }) => {
  // The types served, and those linked to and read by a route of their area's own (Binary).
  const types = new Set([
    ...fhir.keys(),
    ...[...fhir.values()].flat().flatMap((source) => source.linkedReads ?? []),
    PROVENANCE, // read by its own route (provenance-routes.ts)
  ]);
  useFhirErrors(app);
  app.addHook('onRequest', async (request) => {
    throw notServed(app, types, request);
  });
  // Never reached (the hook answers first), but it is what sends this prefix's misses here.
  app.setNotFoundHandler(async (request) => {
    throw notServed(app, types, request);
  });
};

export default notServedRoutes;
