import { Type } from 'typebox';
import type { AreaPlugin } from '../../http/plugin.ts';
import { smartTokenEndpoint } from '../../http/scopes.ts';
import { ApiError } from '../../wire/errors.ts';
import { InstanceParams } from '../../wire/schemas.ts';
import { fhirResponses, useFhirErrors } from '../fhir/index.ts';
import { ASSERTION_ALGORITHMS } from './assertion.ts';
import { supportedScopes } from './smart-scopes.ts';

/**
 * SMART discovery (SMART App Launch 2.0, `.well-known/smart-configuration`; docs/fhir.md): where
 * and how a backend service gets a token (smart.ts). It lives under the FHIR base, so its errors
 * are the FHIR API's (an OperationOutcome), not OAuth's: its own plugin, with the FHIR error handler.
 */

const SmartConfiguration = Type.Object({
  token_endpoint: Type.String(),
  grant_types_supported: Type.Array(Type.String()),
  token_endpoint_auth_methods_supported: Type.Array(Type.String()),
  token_endpoint_auth_signing_alg_values_supported: Type.Array(Type.String()),
  scopes_supported: Type.Array(Type.String()),
  capabilities: Type.Array(Type.String()),
  code_challenge_methods_supported: Type.Array(Type.String()),
});

const smartConfigurationRoutes: AreaPlugin = async (app, { services, fhir }) => {
  const resources = [...fhir.values()].flat();
  useFhirErrors(app);

  app.get(
    '/:tenantName/:instanceName/fhir/R4/.well-known/smart-configuration',
    {
      config: { access: { public: true } },
      schema: {
        tags: ['FHIR R4'],
        summary: 'SMART discovery: where and how a backend service gets a token (no token needed)',
        params: InstanceParams,
        response: { 200: SmartConfiguration, ...fhirResponses(404, 503) },
      },
    },
    async (request) => {
      const tenant = await services.tenant(request.params.tenantName);
      const instance = tenant && (await services.instance(tenant.id, request.params.instanceName));
      if (!instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName: request.params.instanceName });
      return {
        token_endpoint: smartTokenEndpoint(services, request),
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['private_key_jwt'],
        token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
        scopes_supported: supportedScopes(resources),
        capabilities: ['client-confidential-asymmetric', 'permission-v1', 'permission-v2'],
        // SMART App Launch 2.0 requires it, with S256 and never plain. It binds the authorization code
        // flow, which Cairn does not serve yet (no authorization_endpoint); backend services use none.
        code_challenge_methods_supported: ['S256'],
      };
    },
  );
};

export default smartConfigurationRoutes;
