import { tenantContextOf } from '../../http/context.ts';
import { DataAndMeta } from '../../http/pagination.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { TenantParams } from '../../wire/schemas.ts';
import { createClient, getClient, listClients, rotateSecret, updateClient } from './operations.ts';
import {
  ApiClient,
  ApiClientInput,
  ApiClientListQuery,
  ApiClientParams,
  ApiClientPatch,
  ApiClientWithSecret,
} from './schemas.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const tags = ['API clients'];

const signIn =
  'A client signs in with its `clientKey` and secret at `POST /auth/token` (or `POST /{tenantName}/admin/api_clients/{clientKey}`); what it may do is the union of its roles, per instance.';

const notKept =
  'Ignores `Idempotency-Key`: a kept answer would keep the secret, which is stored nowhere but as its hash. A retry is safe without one: a create again meets 409 DUPLICATE_VALUE for its name, a rotation again answers a newer secret.';

/** The answer shows a secret once: the idempotency mechanism must never keep it. */
const secretShownOnce = { ...needs('API_CLIENT_WRITE'), idempotency: false } as const;

/** The tenant's API clients, for the operator's console: what `cairn client create` makes, over the API. */
const apiClientRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/api-clients',
    {
      config: needs('API_CLIENT_READ'),
      schema: {
        tags,
        summary: 'List API clients (data and meta), by name; never their secrets',
        description: `\`name\` matches a part of the name, any case. ${signIn}`,
        params: TenantParams,
        querystring: ApiClientListQuery,
        response: { 200: DataAndMeta(ApiClient), ...errors },
      },
    },
    async (request) => {
      const { page, size, ...filter } = request.query;
      return listClients(tenantContextOf(request), filter, { page, size });
    },
  );

  app.post(
    '/:tenantName/admin/api-clients',
    {
      config: secretShownOnce,
      schema: {
        tags,
        summary: 'Create an API client; the answer holds its secret, shown this once',
        description: `Its key and secret are made by the server; only a scrypt hash of the secret is kept. Each role must be one of its instance's current formation (400 naming each that is not); a name taken is 409 DUPLICATE_VALUE. ${signIn} ${notKept}`,
        params: TenantParams,
        body: ApiClientInput,
        response: { 201: ApiClientWithSecret, ...errors, 409: ErrorBody },
      },
    },
    async (request, reply) => reply.code(201).send(await createClient(tenantContextOf(request), request.body)),
  );

  app.get(
    '/:tenantName/admin/api-clients/:clientId',
    {
      config: needs('API_CLIENT_READ'),
      schema: {
        tags,
        summary: 'An API client and its roles (never its secret)',
        params: ApiClientParams,
        response: { 200: ApiClient, ...errors },
      },
    },
    async (request) => getClient(tenantContextOf(request), request.params.clientId),
  );

  app.patch(
    '/:tenantName/admin/api-clients/:clientId',
    {
      config: needs('API_CLIENT_WRITE'),
      schema: {
        tags,
        summary: 'Rename, enable or disable a client, or replace its roles (the keys given)',
        description:
          'A disabled client gets no token and the tokens it holds stop working at once. A client may not disable itself or take API_CLIENT_WRITE from itself (409 API_CLIENT_LOCK_OUT); a name taken is 409 DUPLICATE_VALUE.',
        params: ApiClientParams,
        body: ApiClientPatch,
        response: { 200: ApiClient, ...errors, 409: ErrorBody },
      },
    },
    async (request) => updateClient(tenantContextOf(request), request.params.clientId, request.body),
  );

  app.post(
    '/:tenantName/admin/api-clients/:clientId/secret',
    {
      config: secretShownOnce,
      schema: {
        tags,
        summary: 'Replace the secret; the answer holds the new one, shown this once',
        description: `The old secret gets no new token from now on; tokens it already got stay valid until they expire (an hour at most). Disable the client to end them at once. ${notKept}`,
        params: ApiClientParams,
        response: { 200: ApiClientWithSecret, ...errors },
      },
    },
    async (request) => rotateSecret(tenantContextOf(request), request.params.clientId),
  );
};

export default apiClientRoutes;
