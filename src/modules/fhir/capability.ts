import { DEFAULT_COUNT, MAX_COUNT, SEARCH_PARAMS } from './search.ts';

/** What each search parameter is, as the CapabilityStatement declares it. */
const PARAM_TYPES: Record<(typeof SEARCH_PARAMS)[number], string> = {
  _id: 'token',
  identifier: 'token',
  name: 'string',
  family: 'string',
  given: 'string',
  birthdate: 'date',
  gender: 'token',
  _lastUpdated: 'date',
};

/**
 * The CapabilityStatement at `metadata`: true to what the routes serve, no more. Open without a
 * token, as FHIR clients read it before they have one.
 */
export function capabilityStatement(base: string, version: string, at: Date) {
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: at.toISOString(),
    kind: 'instance',
    software: { name: 'Cairn', version },
    implementation: { description: 'Cairn care-management API: FHIR R4, read-only, over the same store', url: base },
    fhirVersion: '4.0.1',
    format: ['json'],
    instantiates: ['http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server'],
    rest: [
      {
        mode: 'server',
        documentation: `Searches page ${DEFAULT_COUNT} resources by default, at most ${MAX_COUNT} (_count); follow the Bundle's next link.`,
        security: {
          cors: true,
          service: [
            {
              coding: [{ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'OAuth' }],
            },
          ],
          description: "A bearer token from Cairn's /auth/token; the caller's roles say what it may read.",
        },
        resource: [
          {
            type: 'Patient',
            supportedProfile: ['http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient'],
            interaction: [{ code: 'read' }, { code: 'search-type' }],
            searchParam: SEARCH_PARAMS.map((name) => ({ name, type: PARAM_TYPES[name] })),
          },
        ],
      },
    ],
  };
}
