import type { FastifyRequest } from 'fastify';
import { type TenantContext, tenantContextOf } from '../../../http/context.ts';
import type { AreaPlugin } from '../../../http/plugin.ts';
import { needs } from '../../../http/route-access.ts';
import { listInstances } from '../../../tenancy/tenancy.ts';
import { ErrorBody } from '../../../wire/errors.ts';
import { EmptyBody, TenantParams } from '../../../wire/schemas.ts';
import { issuerOf, SSO_CALLBACK } from '../oauth/endpoints.ts';
import {
  createIdentityProvider,
  deleteIdentityProvider,
  getIdentityProvider,
  listIdentityProviders,
  updateIdentityProvider,
} from './operations.ts';
import {
  IdentityProvider,
  IdentityProviderInput,
  IdentityProviderList,
  IdentityProviderParams,
  IdentityProviderPatch,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['Apps'];

const about =
  "Single sign-on (docs/identity.md): each enabled provider is a \"Sign in with {name}\" button on every instance's sign-in page (SMART apps' authorizations). Register the answer's `redirectUris` at the provider; the client secret is kept sealed and never answered back.";

/** Every instance's callback under the origin the request reached (or CAIRN_PUBLIC_URL): what the provider must know. */
async function redirectUrisOf(ctx: TenantContext, request: FastifyRequest): Promise<string[]> {
  const instances = await listInstances(ctx.db, ctx.tenant.id);
  return instances.map((instance) => `${issuerOf(ctx.services, request, ctx.tenant.name, instance.name)}${SSO_CALLBACK}`);
}

/** The tenant's identity providers (admin API); the sign-in itself is under each FHIR base (oauth/sso-routes.ts). */
const identityProviderRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/identity-providers',
    {
      config: needs('IDENTITY_PROVIDER_READ'),
      schema: {
        tags,
        summary: "List the tenant's single sign-on identity providers, by name (never their secrets)",
        description: about,
        params: TenantParams,
        response: { 200: IdentityProviderList, ...errors },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      return listIdentityProviders(ctx, await redirectUrisOf(ctx, request));
    },
  );

  app.post(
    '/:tenantName/admin/identity-providers',
    {
      config: needs('IDENTITY_PROVIDER_WRITE'),
      schema: {
        tags,
        summary: 'Add an OpenID Connect identity provider people may sign in with',
        description: `A name taken is 409 DUPLICATE_VALUE. ${about}`,
        params: TenantParams,
        body: IdentityProviderInput,
        response: { 201: IdentityProvider, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const ctx = tenantContextOf(request);
      return reply.code(201).send(await createIdentityProvider(ctx, request.body, await redirectUrisOf(ctx, request)));
    },
  );

  app.get(
    '/:tenantName/admin/identity-providers/:providerId',
    {
      config: needs('IDENTITY_PROVIDER_READ'),
      schema: {
        tags,
        summary: 'An identity provider (never its secret)',
        params: IdentityProviderParams,
        response: { 200: IdentityProvider, ...errors },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      return getIdentityProvider(ctx, request.params.providerId, await redirectUrisOf(ctx, request));
    },
  );

  app.patch(
    '/:tenantName/admin/identity-providers/:providerId',
    {
      config: needs('IDENTITY_PROVIDER_WRITE'),
      schema: {
        tags,
        summary: 'Change an identity provider: the keys given',
        description:
          '`clientSecret: null` removes the secret (a public client). `enabled: false` takes the button off the sign-in page.',
        params: IdentityProviderParams,
        body: IdentityProviderPatch,
        response: { 200: IdentityProvider, ...errors, 409: ErrorBody },
      },
    },
    async (request) => {
      const ctx = tenantContextOf(request);
      return updateIdentityProvider(ctx, request.params.providerId, request.body, await redirectUrisOf(ctx, request));
    },
  );

  app.delete(
    '/:tenantName/admin/identity-providers/:providerId',
    {
      config: needs('IDENTITY_PROVIDER_WRITE'),
      schema: {
        tags,
        summary: 'Remove an identity provider, with the links of its people to users (the users stay)',
        params: IdentityProviderParams,
        response: { 204: EmptyBody, ...errors },
      },
    },
    async (request, reply) => {
      await deleteIdentityProvider(tenantContextOf(request), request.params.providerId);
      return reply.code(204).send();
    },
  );
};

export default identityProviderRoutes;
