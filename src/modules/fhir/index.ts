/** What other areas may use of the fhir area: its answers' media type and OperationOutcome errors, for a FHIR route of their own (Binary). */
export { FHIR_JSON, fhirResponses, useFhirErrors } from './outcome.ts';
