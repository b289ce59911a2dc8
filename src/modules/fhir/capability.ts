import type { FhirResource } from '../../http/fhir.ts';
import { commonParams } from '../../http/fhir.ts';
import { DEFAULT_COUNT, MAX_COUNT } from './store.ts';

/**
 * The CapabilityStatement at `metadata`: true to what the routes serve, no more: each resource the
 * areas declare, its profile and its search parameters. Open without a token, as FHIR clients read
 * it before they have one.
 */
export function capabilityStatement(resources: FhirResource[], base: string, version: string, at: Date) {
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
        resource: resources.map((resource) => ({
          type: resource.type,
          ...(resource.profile ? { supportedProfile: [resource.profile] } : {}),
          interaction: [{ code: 'read' }, { code: 'search-type' }],
          searchParam: Object.entries({ ...resource.params, ...commonParams }).map(([name, param]) => ({
            name,
            type: param.type,
          })),
        })),
      },
    ],
  };
}
