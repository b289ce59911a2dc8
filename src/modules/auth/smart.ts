import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { settingsOf } from '../../config.ts';
import { requestOrigin } from '../../files/links.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { acceptForms, publicUrl } from '../../http/provider-callbacks.ts';
import { SMART_TOKEN_PATH, smartTokenEndpoint } from '../../http/scopes.ts';
import type { Services } from '../../http/services.ts';
import { TOKEN_LIFETIME_SECONDS } from '../../http/tokens.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { ASSERTION_ALGORITHMS, assertionIssuer, checkAssertion, useAssertionOnce } from './assertion.ts';
import { tokenLimitSettings } from './settings.ts';
import { grantedScopes } from './smart-scopes.ts';
import { findClientByKey } from './store.ts';
import { checkedAttempt } from './token-limit.ts';

/**
 * SMART Backend Services (SMART App Launch 2.0; docs/fhir.md): an API client that registered a
 * JWK Set trades a signed assertion for a bearer token with `client_credentials`, and the FHIR
 * API's discovery document (smart-configuration.ts) says where. The token is Cairn's own, for the
 * client, carrying the scopes granted, which narrow what its roles allow (http/scopes.ts). Errors
 * here are OAuth's (`{error, error_description}`, RFC 6749 §5.2), as OAuth clients read them.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_scope' | 'unsupported_grant_type',
    description: string,
  ) {
    super(description);
  }
}

export const OAuthErrorBody = Type.Object({ error: Type.String(), error_description: Type.String() });

export const TokenForm = Type.Object(
  {
    grant_type: Type.Optional(Type.String({ maxLength: 100 })),
    scope: Type.Optional(Type.String({ maxLength: 4000 })),
    client_assertion_type: Type.Optional(Type.String({ maxLength: 200 })),
    client_assertion: Type.Optional(Type.String({ maxLength: 16_000 })),
  },
  { additionalProperties: true },
);

export const SmartToken = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  scope: Type.String({ description: 'The scopes granted, one per resource type: fewer than asked where the roles allow less' }),
});

const smartRoutes: AreaPlugin = async (app, { services }) => {
  acceptForms(app);
  app.setErrorHandler(oauthErrors);

  app.post(
    SMART_TOKEN_PATH,
    {
      schema: {
        tags: ['Authentication'],
        summary: 'SMART Backend Services: a token for a signed client assertion (client_credentials, private_key_jwt)',
        description: `A form (application/x-www-form-urlencoded): \`grant_type=client_credentials\`, \`scope\` (SMART v2 system scopes, \`system/Patient.rs\` or \`system/*.rs\`), \`client_assertion_type=${JWT_BEARER}\` and \`client_assertion\`, a JWT signed ${ASSERTION_ALGORITHMS.join(' or ')} by a key the API client registered (\`jwks\`), with \`iss\` and \`sub\` its client key, \`aud\` this URL, \`exp\` at most 5 minutes ahead and a \`jti\` used once. The token is valid 1 hour, for the FHIR API only, with the scopes granted. Errors are OAuth's: 400 invalid_request, unsupported_grant_type or invalid_scope; 401 invalid_client. The sign-in limits of /auth/token apply.`,
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenForm,
        response: { 200: SmartToken, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: ErrorBody },
      },
    },
    async (request, reply) => backendServicesToken(services, request, reply, request.body),
  );
};

export default smartRoutes;

/** OAuth's error answers (RFC 6749 §5.2) for a scope serving token requests; the sign-in limits (429 with Retry-After) answer as Cairn's token routes do. */
export function oauthErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const oauth =
    error instanceof OAuthError
      ? error
      : error.validation || error.statusCode === 415 || error.statusCode === 400
        ? new OAuthError(400, 'invalid_request', error.message)
        : undefined;
  if (oauth) {
    return reply
      .code(oauth.status)
      .header('cache-control', 'no-store')
      .send({ error: oauth.error, error_description: oauth.message });
  }
  throw error;
}

/** The form of a token request, as Fastify parsed it. */
export type TokenFormBody = Static<typeof TokenForm>;

/**
 * SMART Backend Services' `client_credentials` grant: checks the form and the signed assertion and
 * answers the token. Shared by this route and the FHIR base's token endpoint (modules/apps), where
 * the same grant arrives beside the app launch's.
 */
export async function backendServicesToken(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  form: TokenFormBody,
  /** The tenant whose FHIR base the request came to: a client of another is refused. */
  tenantId?: string,
) {
  const { db } = services;
  const limit = settingsOf(services.config, tokenLimitSettings);
  const resources = [...services.fhir.values()].flat();
  // RFC 6749 §5.2: a missing parameter is invalid_request; unsupported_grant_type is for a grant named but not served.
  if (!form.grant_type) throw new OAuthError(400, 'invalid_request', 'grant_type is required (client_credentials)');
  if (form.grant_type !== 'client_credentials') {
    throw new OAuthError(400, 'unsupported_grant_type', 'grant_type must be client_credentials');
  }
  if (form.client_assertion_type !== JWT_BEARER || !form.client_assertion) {
    throw new OAuthError(400, 'invalid_request', `client_assertion_type must be ${JWT_BEARER}, with a client_assertion`);
  }
  if (!form.scope) throw new OAuthError(400, 'invalid_request', 'scope is required');
  const assertion = form.client_assertion;
  const issuer = assertionIssuer(assertion);
  const client = issuer ? await findClientByKey(db, issuer) : undefined;
  const now = services.clock.now();
  let why = 'no API client of this tenant has this key, or it is disabled, or it registered no keys';
  const matches = async () => {
    if (!client?.enabled || !client.jwks || (tenantId !== undefined && client.tenantId !== tenantId)) return false;
    // As published, and as reached (a proxy in front may change the host the request names).
    const path = request.url.split('?')[0] ?? SMART_TOKEN_PATH;
    const audiences = [
      smartTokenEndpoint(services, request),
      publicUrl(services, path) ?? '',
      `${requestOrigin(request)}${path}`,
    ];
    const checked = await checkAssertion(assertion, { clientKey: client.clientKey, jwks: client.jwks, audiences, now });
    if (!checked.ok) {
      why = checked.why;
      return false;
    }
    why = 'this assertion (its jti) was used before';
    return useAssertionOnce(db, client, checked, now);
  };
  const subject = client && { tenantId: client.tenantId, principalId: client.id };
  const ok = await checkedAttempt(db, limit, now, { subject, source: request.ip, matches });
  if (!ok || !client) throw new OAuthError(401, 'invalid_client', why);

  const caller = { type: 'API_CLIENT' as const, id: client.id, tenantId: client.tenantId, name: `API_CLIENT:${client.name}` };
  const scopes = grantedScopes(form.scope, resources, await services.accessOf(caller));
  if (scopes.length === 0) {
    throw new OAuthError(400, 'invalid_scope', "none of the scopes asked for is one this client's roles allow");
  }
  const issued = await services.tokens.issue({ ...caller, scopes });
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
  return {
    access_token: issued.token,
    token_type: 'bearer' as const,
    expires_in: TOKEN_LIFETIME_SECONDS,
    scope: scopes.join(' '),
  };
}
