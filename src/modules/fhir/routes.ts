import { Type } from 'typebox';
import { requestOrigin } from '../../files/links.ts';
import { eachPatient, thePatient } from '../../http/access-log.ts';
import { contextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ApiError } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { capabilityStatement } from './capability.ts';
import { FHIR_JSON, fhirErrorHandler, fhirResponses } from './outcome.ts';
import { fhirPatient } from './patient.ts';
import { findPatientRow, searchPatients } from './store.ts';

const tags = ['FHIR R4'];
const BASE = '/:tenantName/:instanceName/fhir/R4';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** FHIR ids are up to 64 of [A-Za-z0-9-.]; Cairn's are uuids, so any other names nothing (404). */
const ReadParams = Type.Object({ ...InstanceParams.properties, patientId: Type.String({ maxLength: 64 }) });
/** Search parameters are FHIR's, read by the search itself: unknown ones are ignored, as FHIR allows. */
const SearchQuery = Type.Object({}, { additionalProperties: true });

/** The FHIR R4 API of an instance (docs/fhir.md): read-only, over the same store, errors as OperationOutcome. */
const fhirRoutes: AreaPlugin = async (app, { services }) => {
  app.setErrorHandler(fhirErrorHandler);
  const baseOf = (request: { protocol: string; host: string; params: unknown }) => {
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
      if (!instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName: request.params.instanceName });
      reply.type(FHIR_JSON);
      return capabilityStatement(baseOf(request), '1.0.0', services.clock.now());
    },
  );

  app.get(
    `${BASE}/Patient/:patientId`,
    {
      config: needs('PATIENT_READ', { discloses: thePatient('PATIENT') }),
      schema: {
        tags,
        summary: 'A Patient (US Core Patient), by id',
        params: ReadParams,
        response: fhirResponses(200, 400, 401, 403, 404, 429, 503),
      },
    },
    async (request, reply) => {
      const { patientId } = request.params;
      const row = UUID.test(patientId) ? await findPatientRow(contextOf(request), patientId) : undefined;
      if (!row) throw new ApiError('PATIENT_NOT_FOUND', { id: patientId });
      reply.type(FHIR_JSON);
      return fhirPatient(row);
    },
  );

  app.get(
    `${BASE}/Patient`,
    {
      config: needs('PATIENT_READ', { discloses: eachPatient('PATIENT', 'entry', 'resource.id') }),
      schema: {
        tags,
        summary: 'Search Patients: a searchset Bundle, paged by its next link',
        description:
          '`_id`, `identifier` (`system|value`), `name`, `family`, `given`, `birthdate` and `_lastUpdated` (with eq, ne, lt, gt, le, ge), `gender`, `_count` (20 by default, at most 1000), `_summary=count`. A repeated parameter is AND, a comma OR. Parameters not served are ignored and left out of the `self` link.',
        params: InstanceParams,
        querystring: SearchQuery,
        response: fhirResponses(200, 400, 401, 403, 404, 429, 503),
      },
    },
    async (request, reply) => {
      reply.type(FHIR_JSON);
      return searchPatients(contextOf(request), request.query as Record<string, unknown>, baseOf(request));
    },
  );
};

export default fhirRoutes;
