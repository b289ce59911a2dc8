import { Type } from 'typebox';
import type { AreaPlugin } from '../../../http/plugin.ts';
import { ApiError } from '../../../wire/errors.ts';
import { InstanceParams } from '../../../wire/schemas.ts';
import { ASSERTION_ALGORITHMS, supportedScopes } from '../../auth/index.ts';
import { fhirResponses, useFhirErrors } from '../../fhir/index.ts';
import { oauthEndpoints } from './endpoints.ts';
import { IDENTITY_SCOPES } from './scopes.ts';

/**
 * SMART discovery (SMART App Launch 2.0.0, `.well-known/smart-configuration`; docs/identity.md):
 * the instance's authorization server, for apps (authorization code with PKCE) and backend services
 * (client_credentials with a signed assertion) alike. It lives under the FHIR base, so its errors
 * are the FHIR API's (an OperationOutcome): its own plugin, with the FHIR error handler.
 */

const Strings = Type.Array(Type.String());
const SmartConfiguration = Type.Object({
  issuer: Type.String(),
  jwks_uri: Type.String(),
  authorization_endpoint: Type.String(),
  token_endpoint: Type.String(),
  introspection_endpoint: Type.String(),
  revocation_endpoint: Type.String(),
  userinfo_endpoint: Type.String(),
  grant_types_supported: Strings,
  response_types_supported: Strings,
  token_endpoint_auth_methods_supported: Strings,
  token_endpoint_auth_signing_alg_values_supported: Strings,
  scopes_supported: Strings,
  capabilities: Strings,
  code_challenge_methods_supported: Strings,
});

/** What Cairn's authorization servers do, in SMART's words. */
const CAPABILITIES = [
  'launch-standalone',
  'launch-ehr',
  'context-ehr-patient',
  'context-standalone-patient',
  'client-public',
  'client-confidential-symmetric',
  'client-confidential-asymmetric',
  'sso-openid-connect',
  'authorize-post',
  'permission-v1',
  'permission-v2',
  'permission-patient',
  'permission-user',
  'permission-offline',
  'permission-online',
];

const smartConfigurationRoutes: AreaPlugin = async (app, { services, fhir }) => {
  const resources = [...fhir.values()].flat();
  useFhirErrors(app);

  app.get(
    '/:tenantName/:instanceName/fhir/R4/.well-known/smart-configuration',
    {
      config: { access: { public: true } },
      schema: {
        tags: ['FHIR R4'],
        summary: 'SMART discovery: where and how apps and backend services get a token (no token needed)',
        params: InstanceParams,
        response: { 200: SmartConfiguration, ...fhirResponses(404, 503) },
      },
    },
    async (request) => {
      const { tenantName, instanceName } = request.params;
      const tenant = await services.tenant(tenantName);
      const instance = tenant && (await services.instance(tenant.id, instanceName));
      if (!tenant || !instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName });
      const urls = oauthEndpoints(services, request, tenant.name, instance.name);
      const backend = supportedScopes(resources);
      return {
        issuer: urls.issuer,
        jwks_uri: urls.jwks,
        authorization_endpoint: urls.authorize,
        token_endpoint: urls.token,
        introspection_endpoint: urls.introspect,
        revocation_endpoint: urls.revoke,
        userinfo_endpoint: urls.userinfo,
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        response_types_supported: ['code'],
        token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
        scopes_supported: [
          ...IDENTITY_SCOPES,
          'patient/*.rs',
          ...backend.map((scope) => scope.replace(/^system\//, 'patient/')),
          'user/*.rs',
          ...backend.map((scope) => scope.replace(/^system\//, 'user/')),
          ...backend,
        ],
        capabilities: CAPABILITIES,
        // S256 only: plain and a missing challenge are refused.
        code_challenge_methods_supported: ['S256'],
      };
    },
  );
};

export default smartConfigurationRoutes;
