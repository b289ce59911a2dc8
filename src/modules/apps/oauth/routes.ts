import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { named } from '../../../http/access-log.ts';
import type { AreaPlugin } from '../../../http/plugin.ts';
import { acceptForms } from '../../../http/provider-callbacks.ts';
import { ApiError, ErrorBody } from '../../../wire/errors.ts';
import { InstanceParams } from '../../../wire/schemas.ts';
import { backendServicesToken, OAuthErrorBody, oauthErrors, SmartToken, TokenForm } from '../../auth/index.ts';
import { ssoSignInRoutes } from '../sso/sign-in-routes.ts';
import { consent, showInteraction } from './consent.ts';
import { OAUTH_ROUTES } from './endpoints.ts';
import { BASE, Html, InteractionParams, onward, PUBLIC, page, pageError, pageErrors } from './page-routes.ts';
import { PICKER_SIZE } from './picker.ts';
import { AuthorizationServers, type InstanceServer } from './servers.ts';
import { SECOND_FACTOR_SECONDS, signIn, signInWithCode } from './sign-in.ts';

/**
 * Each instance's authorization server at its FHIR base (SMART App Launch 2.0, OpenID Connect):
 * oidc-provider answers `<FHIR base>/oauth/*` and `/.well-known/openid-configuration` itself (the
 * request handed to it whole, before Fastify reads the body); the token endpoint also serves
 * SMART Backend Services' grant; the sign-in and consent pages are Cairn's.
 */

const MOUNTED = /^(\/[^/?#]+\/[^/?#]+\/fhir\/R4)(\/.*)$/;

const SignInForm = Type.Object(
  { username: Type.Optional(Type.String({ maxLength: 200 })), password: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: true },
);
const CodeForm = Type.Object({ code: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: true });
const ConsentForm = Type.Object(
  {
    decision: Type.Optional(Type.String({ maxLength: 20 })),
    patient: Type.Optional(
      Type.String({ maxLength: 64, description: 'The patient picked, for a standalone launch asking for one' }),
    ),
    scope: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 })]),
    ),
  },
  { additionalProperties: true },
);
const json = (description: string, schema: TSchema = Type.Object({}, { additionalProperties: true })) => ({
  description,
  content: { 'application/json': { schema } },
});
/** oidc-provider's redirects carry a line saying where, as HTML or text by the Accept header. */
const redirected = {
  description: 'Redirected (Location): to the next page, or back to the app with a code or an OAuth error',
  content: { 'text/html': { schema: Html }, 'text/plain': { schema: Html } },
};
const noInstance = json('No such instance (INSTANCE_NOT_FOUND)', ErrorBody);
const oauthError = json("OAuth's error (RFC 6749 §5.2)", OAuthErrorBody);

/**
 * OpenID Connect issues a refresh token for offline_access only when the request says
 * `prompt=consent`. SMART apps ask for offline_access without it, and Cairn asks the user's consent
 * on every authorization anyway: the prompt is added where the app left it out.
 */
function askConsent(params: URLSearchParams) {
  const scopes = (params.get('scope') ?? '').split(' ');
  if (scopes.includes('offline_access') && !params.has('prompt')) params.set('prompt', 'consent');
}

/**
 * oidc-provider (Koa) reads the scheme, host and address from X-Forwarded-* when told to trust a
 * proxy, from any sender; Fastify trusts them only from the proxies CAIRN_TRUST_PROXY names. Before a
 * request reaches the authorization server, its forwarded headers are set to what Fastify concluded,
 * so both see one scheme (the cookies' Secure flag), one host and one address, whoever sent them.
 */
function asFastifySees(request: FastifyRequest): void {
  const { headers } = request.raw;
  headers['x-forwarded-proto'] = request.protocol;
  headers['x-forwarded-host'] = request.host;
  headers['x-forwarded-for'] = request.ip;
}

const oauthRoutes: AreaPlugin = async (app, { services }) => {
  const servers = new AuthorizationServers(services);
  // The consent page's checkboxes share a name; a token request's parameter given twice is then refused.
  acceptForms(app, { repeated: true });

  async function serverOf(request: FastifyRequest): Promise<InstanceServer> {
    asFastifySees(request);
    const { tenantName, instanceName } = request.params as { tenantName: string; instanceName: string };
    const server = await servers.of(request, tenantName, instanceName);
    if (!server) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName });
    return server;
  }

  /** oidc-provider takes the request from here, mounted at the FHIR base; `body` when Fastify already read it. */
  async function handOver(request: FastifyRequest, reply: FastifyReply, body?: unknown) {
    const server = await serverOf(request);
    const raw = request.raw as typeof request.raw & { originalUrl?: string; body?: unknown };
    const [, mount = '', path = '/'] = MOUNTED.exec(raw.url ?? '') ?? [];
    let rest = path;
    if (rest.startsWith(OAUTH_ROUTES.authorization)) {
      const [path, query = ''] = rest.split('?');
      const params = new URLSearchParams(query);
      askConsent(params);
      rest = `${path}?${params}`;
    }
    reply.hijack();
    // As Express mounts an app: oidc-provider finds its mount path in originalUrl, before url.
    raw.originalUrl = `${mount}${rest}`;
    raw.url = rest;
    if (body !== undefined) raw.body = body;
    await server.handle(raw, reply.raw);
  }

  // oidc-provider's own endpoints, each named so the API docs show it; the request is handed over before Fastify reads it.
  const handedOver = (
    method: 'GET' | 'POST',
    path: string,
    summary: string,
    response: Record<number, unknown>,
    description?: string,
  ) =>
    app.route({
      method,
      url: `${BASE}${path}`,
      config: PUBLIC,
      schema: {
        tags: ['Authentication'],
        summary,
        ...(description ? { description } : {}),
        security: [],
        params: path.includes(':uid') ? InteractionParams : InstanceParams,
        response,
      },
      onRequest: (request, reply) => handOver(request, reply),
      handler: async () => {
        throw new Error('handed over to the authorization server in onRequest');
      },
    });
  const authorizeParams =
    '`response_type=code`, `client_id`, `redirect_uri` (exactly as registered: another is refused on this page, never redirected to), `scope`, `state`, `code_challenge` with `code_challenge_method=S256` (required: plain and none are refused), `aud` (this FHIR base), and optionally `nonce` and `launch`. The user signs in and allows the app (or less); the browser returns to the redirect URI with `code` and `state`, or an OAuth error.';
  handedOver(
    'GET',
    OAUTH_ROUTES.authorization,
    'Authorize an app (SMART App Launch 2.0, OpenID Connect): where an app sends the user',
    { 303: redirected, 400: pageErrors[400], 404: noInstance },
    authorizeParams,
  );
  handedOver(
    'GET',
    `${OAUTH_ROUTES.authorization}/:uid`,
    'Resume an authorization after its sign-in and consent pages (they redirect here)',
    { 303: redirected, 400: pageErrors[400], 404: noInstance },
  );
  handedOver(
    'GET',
    OAUTH_ROUTES.jwks,
    'The public keys ID tokens are signed with (a JWK Set; older keys stay while their tokens may)',
    {
      200: {
        description: 'A JWK Set',
        content: {
          'application/jwk-set+json': {
            schema: Type.Object({ keys: Type.Array(Type.Object({}, { additionalProperties: true })) }),
          },
        },
      },
      404: noInstance,
    },
  );
  const userinfo = {
    200: json('The claims the token allows: sub, fhirUser, name'),
    400: oauthError,
    401: oauthError,
    404: noInstance,
  };
  handedOver(
    'GET',
    OAUTH_ROUTES.userinfo,
    "OpenID Connect userinfo: the signed-in user's claims (sub, fhirUser, name) for an app's access token",
    userinfo,
  );
  handedOver('POST', OAUTH_ROUTES.userinfo, 'OpenID Connect userinfo, by POST', userinfo);
  handedOver(
    'POST',
    OAUTH_ROUTES.revocation,
    'Revoke an access or refresh token (RFC 7009): a refresh token takes its grant with it',
    {
      200: page('Revoked, or unknown (RFC 7009 answers both alike): no body'),
      400: oauthError,
      401: oauthError,
      404: noInstance,
    },
  );
  const signOut = {
    200: page("Cairn's page asking to sign out (a form the buttons send)"),
    303: redirected,
    400: pageErrors[400],
    404: noInstance,
  };
  const signOutNote =
    'RP-initiated logout (OpenID Connect): `id_token_hint`, `client_id`, `post_logout_redirect_uri` (registered), `state`. The session and its cookies end; refresh tokens of `online_access` with them.';
  handedOver('GET', OAUTH_ROUTES.end_session, 'Sign out of the authorization server (the console, an app)', signOut, signOutNote);
  handedOver('POST', `${OAUTH_ROUTES.end_session}/confirm`, "Sign-out's answer (the page's form)", {
    303: redirected,
    // oidc-provider answers a form it cannot match as a page, or as JSON to a client asking no HTML.
    400: { description: 'No sign-out waiting in this browser', content: { ...pageErrors[400].content, ...oauthError.content } },
    404: noInstance,
  });
  handedOver('GET', `${OAUTH_ROUTES.end_session}/success`, 'Signed out (a page, when no redirect was given)', {
    200: page('Signed out'),
    404: noInstance,
  });
  handedOver('POST', OAUTH_ROUTES.introspection, 'Introspect a token (RFC 7662), for the app it was issued to', {
    200: json('`active`, and for an active token its client_id, sub, scope and exp'),
    400: oauthError,
    401: oauthError,
    404: noInstance,
  });
  handedOver(
    'GET',
    '/.well-known/openid-configuration',
    'OpenID Connect discovery for the instance (the issuer is its FHIR base)',
    {
      200: json('The OpenID Provider metadata'),
      404: noInstance,
    },
  );

  /**
   * SMART's authorize-post, as a redirect to the GET with the same parameters. oidc-provider's own
   * POST needs its session cookie SameSite=None (then Secure, so never on plain HTTP); the browser
   * follows a 303 with a GET, which SameSite=Lax cookies go with.
   */
  app.post(
    `${BASE}${OAUTH_ROUTES.authorization}`,
    {
      config: PUBLIC,
      errorHandler: pageError,
      schema: {
        tags: ['Authentication'],
        summary: 'Authorize an app, by POST (a form with the parameters of the GET)',
        security: [],
        params: InstanceParams,
        consumes: ['application/x-www-form-urlencoded'],
        body: Type.Object(
          {},
          { additionalProperties: Type.Union([Type.String({ maxLength: 4000 }), Type.Array(Type.String({ maxLength: 4000 }))]) },
        ),
        response: { 303: onward, ...pageErrors },
      },
    },
    async (request, reply) => {
      await serverOf(request);
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(request.body)) for (const one of [value].flat()) params.append(name, one);
      const path = (request.raw.url ?? '').split('?')[0];
      return reply.code(303).header('cache-control', 'no-store').redirect(`${path}?${params}`);
    },
  );

  app.post(
    `${BASE}/oauth/token`,
    {
      config: PUBLIC,
      errorHandler: oauthErrors,
      schema: {
        tags: ['Authentication'],
        summary: "The token endpoint of the FHIR base: an app's code or refresh token, or a backend service's signed assertion",
        description:
          "A form (application/x-www-form-urlencoded). `grant_type=authorization_code` (with `code`, `redirect_uri`, `code_verifier`) and `refresh_token` are OAuth 2.0's, as SMART App Launch 2.0 uses them (docs/identity.md); `client_credentials` is SMART Backend Services', as at `POST /auth/smart/token`. Errors are OAuth's.",
        security: [],
        params: InstanceParams,
        consumes: ['application/x-www-form-urlencoded'],
        body: TokenForm,
        response: {
          200: Type.Union([SmartToken, Type.Object({}, { additionalProperties: true })]),
          400: OAuthErrorBody,
          401: OAuthErrorBody,
          404: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      if (request.body.grant_type === 'client_credentials') {
        const server = await serverOf(request);
        return backendServicesToken(services, request, reply, request.body, server.tenant.id);
      }
      return handOver(request, reply, request.body);
    },
  );

  app.get(
    `${BASE}/oauth/interaction/:uid`,
    {
      // The picker names patients: its reader is the signed-in user (picker.ts).
      config: { access: { public: true, discloses: named('PATIENT') } },
      errorHandler: pageError,
      schema: {
        tags: ['Authentication'],
        summary: 'The sign-in or consent page of an authorization (HTML)',
        description: `For an app asking for a patient without an EHR launch, the consent page lists up to ${PICKER_SIZE} patients the user may read (the newest, or those \`q\` finds by name) to pick one; the list is recorded in the access log under the user.`,
        security: [],
        params: InteractionParams,
        querystring: Type.Object({ q: Type.Optional(Type.String({ maxLength: 100, description: 'Find patients by name' })) }),
        response: { 200: page('The sign-in or consent page'), ...pageErrors },
      },
    },
    async (request, reply) =>
      showInteraction(services, await serverOf(request), request, reply, request.params.uid, request.query.q),
  );

  app.post(
    `${BASE}/oauth/interaction/:uid/login`,
    {
      config: PUBLIC,
      errorHandler: pageError,
      schema: {
        tags: ['Authentication'],
        summary: "Sign in on an authorization's page (a form: username, password); wrong ones slow down, then 429",
        description:
          'A user with a second factor gets the code page (200) instead of going on; where the tenant requires one and the user has none, the page to add one (a QR code), whose first code confirms it.',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        params: InteractionParams,
        body: SignInForm,
        response: {
          200: page('The code page, for a user with a second factor'),
          303: onward,
          ...pageErrors,
          401: page('The sign-in page again, saying the username or password is not right'),
          429: page('Too many attempts: the page says to wait (Retry-After)'),
        },
      },
    },
    async (request, reply) => signIn(services, await serverOf(request), request, reply, request.params.uid, request.body),
  );

  // Single sign-on through the tenant's identity providers: the sign-in page's other buttons.
  ssoSignInRoutes(app, services, serverOf);

  app.post(
    `${BASE}/oauth/interaction/:uid/code`,
    {
      config: PUBLIC,
      errorHandler: pageError,
      schema: {
        tags: ['Authentication'],
        summary: "A sign-in's second step, for a user with a second factor (a form: code, a TOTP or recovery code)",
        description: `Asked after a right password, within ${SECOND_FACTOR_SECONDS / 60} minutes; a wrong code counts as a wrong password under the token routes' limits.`,
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        params: InteractionParams,
        body: CodeForm,
        response: {
          200: page('The recovery codes of a factor just added (shown once); the next post goes on'),
          303: onward,
          ...pageErrors,
          400: page('The sign-in page again: the password step expired'),
          401: page('The code page again, saying the code is not right'),
          429: page('Too many attempts: the page says to wait (Retry-After)'),
        },
      },
    },
    async (request, reply) => signInWithCode(services, await serverOf(request), request, reply, request.params.uid, request.body),
  );

  app.post(
    `${BASE}/oauth/interaction/:uid/consent`,
    {
      config: PUBLIC,
      errorHandler: pageError,
      schema: {
        tags: ['Authentication'],
        summary: 'Allow an app what the user left checked, or deny it (a form: decision, scope)',
        security: [],
        consumes: ['application/x-www-form-urlencoded'],
        params: InteractionParams,
        body: ConsentForm,
        response: { 303: onward, ...pageErrors, 400: page('The consent page again, when a patient must be picked and was not') },
      },
    },
    async (request, reply) => consent(services, await serverOf(request), request, reply, request.params.uid, request.body),
  );
};

export default oauthRoutes;
