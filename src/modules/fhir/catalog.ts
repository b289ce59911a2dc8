import type { NamesOf } from '../../wire/errors.ts';

/** What the FHIR API's read and search add to the shared catalogs: what it does not serve (docs/fhir.md). */

export const fhirErrors = {
  // R4 http.html (create, search): a resource type the server does not support is 404.
  FHIR_TYPE_NOT_SUPPORTED: { status: 404, componentType: 'FHIR', message: 'This FHIR API serves no resource of this type' },
  // R4 http.html (delete): a server that refuses an interaction on principle answers 405.
  FHIR_INTERACTION_NOT_SUPPORTED: {
    status: 405,
    componentType: 'FHIR',
    message: 'This FHIR API does not serve this interaction (it is read-only)',
  },
  // RFC 9110 §15.5.7: no representation the client accepts.
  FHIR_FORMAT_NOT_SUPPORTED: {
    status: 406,
    componentType: 'FHIR',
    message: 'This FHIR API answers application/fhir+json only',
  },
  // A Provenance is read only where its target is: one whose record the caller may not read is not there for it.
  PROVENANCE_NOT_FOUND: { status: 404, componentType: 'FHIR', message: 'No Provenance with this id' },
} as const;

declare module '../../wire/errors.ts' {
  interface ErrorCodes extends NamesOf<typeof fhirErrors> {}
}
