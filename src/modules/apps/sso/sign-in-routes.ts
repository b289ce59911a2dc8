import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Api } from '../../../http/plugin.ts';
import type { Services } from '../../../http/services.ts';
import { InstanceParams, Uuid } from '../../../wire/schemas.ts';
import { SSO_CALLBACK } from '../oauth/endpoints.ts';
import { BASE, InteractionParams, onward, PUBLIC, page, pageError, pageErrors } from '../oauth/page-routes.ts';
import type { InstanceServer } from '../oauth/servers.ts';
import { IdentityProviderConfigurations } from './discovery.ts';
import { callback, finishSignIn, startSignIn } from './sign-in.ts';

/**
 * Single sign-on's routes under each FHIR base, beside the sign-in page (registered by
 * oauth/routes.ts): the button, the callback the provider knows, and the step that finishes.
 */

const tags = ['Authentication'];
/** The provider's answer, passed on as it came (code, state, iss; or error and error_description). */
const ProviderAnswer = Type.Object(
  { state: Type.Optional(Type.String({ maxLength: 500 })) },
  { additionalProperties: Type.String({ maxLength: 4000 }) },
);
const unreachable = page('The identity provider cannot be reached: the page says to try again, or sign in another way');

export function ssoSignInRoutes(app: Api, services: Services, serverOf: (request: FastifyRequest) => Promise<InstanceServer>) {
  const configurations = new IdentityProviderConfigurations(services);

  app.get(
    `${BASE}/oauth/interaction/:uid/sso/:providerId`,
    {
      config: PUBLIC,
      errorHandler: pageError,
      schema: {
        tags,
        summary: "Sign in with one of the tenant's identity providers (the sign-in page's button): off to the provider",
        description:
          'Redirects to the provider (OpenID Connect, PKCE S256, `openid email profile`); it sends the browser back to `<FHIR base>/oauth/sso/callback`. docs/identity.md, "Single sign-on".',
        security: [],
        params: Type.Object({ ...InteractionParams.properties, providerId: Uuid }),
        response: {
          303: onward,
          ...pageErrors,
          404: page('No such instance, or no such identity provider enabled'),
          502: unreachable,
        },
      },
    },
    async (request, reply) =>
      startSignIn(
        services,
        configurations,
        await serverOf(request),
        request,
        reply,
        request.params.uid,
        request.params.providerId,
      ),
  );

  app.get(
    `${BASE}${SSO_CALLBACK}`,
    {
      config: PUBLIC,
      errorHandler: pageError,
      schema: {
        tags,
        summary: "Where identity providers send people back (register it at the provider): on to the sign-in's page",
        description:
          "The browser is sent on to its authorization's page with the provider's answer, where the sign-in finishes. An unknown or expired `state` is a page (400).",
        security: [],
        params: InstanceParams,
        querystring: ProviderAnswer,
        response: { 303: onward, ...pageErrors },
      },
    },
    async (request, reply) => callback(services, await serverOf(request), request, reply),
  );

  app.get(
    `${BASE}/oauth/interaction/:uid/sso-done`,
    {
      config: PUBLIC,
      errorHandler: pageError,
      schema: {
        tags,
        summary: 'Finish a single sign-on: the code traded, the person matched to a user, the sign-in done',
        description:
          'Good once, for the browser that started the authorization. A person no user matches (or a user disabled, or without `ssoAccess`) is refused on a page (403), unless the provider creates users.',
        security: [],
        params: InteractionParams,
        querystring: ProviderAnswer,
        response: {
          303: onward,
          ...pageErrors,
          403: page('The person is not a user here, or the user may not sign in this way'),
          502: unreachable,
        },
      },
    },
    async (request, reply) => finishSignIn(services, configurations, await serverOf(request), request, reply, request.params.uid),
  );
}
