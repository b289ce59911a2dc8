/** What the apps area offers other areas: where an instance's authorization server is (the FHIR API's CapabilityStatement names it). */
export { oauthEndpoints } from './oauth/endpoints.ts';
