import { type FhirParam, type FhirResource, paramsOf, US_CORE_VERSION } from '../../http/fhir.ts';
import { includeNames } from './include.ts';
import { provenanceCapability } from './provenance.ts';
import { DEFAULT_COUNT, MAX_COUNT } from './store.ts';

/**
 * The CapabilityStatement at `metadata`: true to what the routes serve, no more: each type the
 * areas declare, once however many sources serve it, with its profile and the search parameters
 * any of its sources serves; and the types they link to that their areas read by routes of their
 * own (Binary). Open without a token, as FHIR clients read it before they have one.
 */
export function capabilityStatement(
  types: ReadonlyMap<string, readonly FhirResource[]>,
  urls: { base: string; token: string; authorize: string; revoke: string; introspect: string },
  version: string,
  at: Date,
) {
  const linked = [...types.values()].flat().flatMap((source) => source.linkedReads ?? []);
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: at.toISOString(),
    kind: 'instance',
    software: { name: 'Cairn', version },
    implementation: { description: 'Cairn care-management API: FHIR R4, read-only, over the same store', url: urls.base },
    fhirVersion: '4.0.1',
    format: ['json'],
    instantiates: [
      `http://hl7.org/fhir/us/core/CapabilityStatement/us-core-server|${US_CORE_VERSION}`,
      'http://hl7.org/fhir/uv/bulkdata/CapabilityStatement/bulk-data|2.0.0',
    ],
    rest: [
      {
        mode: 'server',
        documentation: `Searches page ${DEFAULT_COUNT} resources by default, at most ${MAX_COUNT} (_count); follow the Bundle's next link.`,
        security: {
          // SMART's place for the token endpoint (the discovery document is the newer one).
          extension: [
            {
              url: 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris',
              extension: [
                { url: 'token', valueUri: urls.token },
                { url: 'authorize', valueUri: urls.authorize },
                { url: 'revoke', valueUri: urls.revoke },
                { url: 'introspect', valueUri: urls.introspect },
              ],
            },
          ],
          cors: true,
          service: [
            {
              coding: [
                { system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'OAuth' },
                { system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'SMART-on-FHIR' },
              ],
            },
          ],
          description:
            "A bearer token from Cairn's /auth/token, from an app's SMART App Launch or from SMART Backend Services (.well-known/smart-configuration); the caller's roles, narrowed by a SMART token's scopes, say what it may read.",
        },
        operation: [BULK_OPERATIONS.system],
        resource: [
          ...[...types].map(([type, sources]) => ({
            type,
            ...(sources[0]?.profile
              ? {
                  supportedProfile: [sources[0].profile, ...(sources[0].otherProfiles ?? [])].map(
                    (url) => `${url}|${US_CORE_VERSION}`,
                  ),
                }
              : {}),
            interaction: [{ code: 'read' }, { code: 'search-type' }],
            ...(includeNames(type, sources).length > 0 ? { searchInclude: includeNames(type, sources) } : {}),
            // US Core asks it of every type it profiles (revinclude.ts); other types serve it too.
            ...(sources[0]?.profile ? { searchRevInclude: ['Provenance:target'] } : {}),
            searchParam: searchParamsOf(sources),
            ...(type === 'Patient' ? { operation: [BULK_OPERATIONS.patient] } : {}),
          })),
          ...[...new Set(linked)].filter((type) => !types.has(type)).map((type) => ({ type, interaction: [{ code: 'read' }] })),
          provenanceCapability,
        ],
      },
    ],
  };
}

/** Bulk Data 2.0's `$export` (bulk/routes.ts): the system's and the patients'. */
const BULK_OPERATIONS = {
  system: { name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export|2.0.0' },
  patient: { name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/patient-export|2.0.0' },
};

/**
 * The parameters any of a type's sources serves, each once (its own first, then `_id` and
 * `_lastUpdated`); one of Cairn's own with its `definition` (R4: where a client learns what a
 * parameter means) and `documentation`.
 */
function searchParamsOf(sources: readonly FhirResource[]) {
  const params = new Map<string, FhirParam>();
  for (const source of sources) {
    for (const [name, param] of Object.entries({ ...source.params, ...paramsOf(source) })) params.set(name, param);
  }
  return [...params].map(([name, { type, definition }]) => ({
    name,
    ...(definition ? { definition: definition.url } : {}),
    type,
    ...(definition ? { documentation: definition.documentation } : {}),
  }));
}
