import { Type } from 'typebox';
import { ApiError, badField, ErrorBody } from '../../http/errors.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { DateTime } from '../../http/schemas.ts';
import { spendVerificationTime, verifySecret } from './secrets.ts';
import { type ClientForLogin, findClientByKey, findClientByName, findUserForLogin } from './store.ts';
import { consumeTokenRequest } from './token-limit.ts';

const TokenRequest = Type.Object(
  {
    apiClient: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'API client key' })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    tenantName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { description: 'Either `{apiClient, secret}` or, for a user with passwordAccess, `{tenantName, username, password}`.' },
);

const TokenResponse = Type.Object({ token: Type.String(), expiresAt: DateTime });

const tokenErrors = { 400: ErrorBody, 401: ErrorBody, 429: ErrorBody };

/**
 * The two token routes of DECISIONS §4. Neither ever answers with the two "refresh" codes:
 * a wrong secret is INVALID_CLIENT_CREDENTIALS, so a client does not loop refreshing.
 */
const authRoutes: AreaPlugin = async (app, { services }) => {
  const { db, config, tokens } = services;

  async function clientToken(client: ClientForLogin | undefined, secret: string) {
    if (!client) {
      await spendVerificationTime(secret);
      throw new ApiError('INVALID_CLIENT_CREDENTIALS');
    }
    await consumeTokenRequest(db, client.tenantId, client.id, config.tokenLimit);
    if (!(await verifySecret(secret, client.secretHash)) || !client.enabled) throw new ApiError('INVALID_CLIENT_CREDENTIALS');
    return tokens.issue({ type: 'API_CLIENT', id: client.id, tenantId: client.tenantId, name: `API_CLIENT:${client.name}` });
  }

  app.post(
    '/auth/token',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'Issue a bearer token (valid 1 hour; 100 requests per 5 minutes per caller)',
        security: [],
        body: TokenRequest,
        response: { 200: TokenResponse, ...tokenErrors },
      },
    },
    async (request) => {
      const { apiClient, secret, tenantName, username, password } = request.body;
      if (apiClient !== undefined) {
        if (secret === undefined) throw badField('body.secret', 'is required with apiClient');
        return clientToken(await findClientByKey(db, apiClient), secret);
      }
      if (username === undefined && tenantName === undefined) {
        throw badField('body.apiClient', 'give apiClient and secret, or tenantName, username and password');
      }
      if (!tenantName) throw badField('body.tenantName', 'is required with username');
      if (!username) throw badField('body.username', 'is required with tenantName');
      if (!password) throw badField('body.password', 'is required with username');
      const user = await findUserForLogin(db, tenantName, username);
      if (!user) {
        await spendVerificationTime(password);
        throw new ApiError('INVALID_USER_CREDENTIALS');
      }
      await consumeTokenRequest(db, user.tenantId, user.id, config.tokenLimit);
      const passwordMatches = user.passwordHash !== null && (await verifySecret(password, user.passwordHash));
      if (!passwordMatches || !user.mayUsePassword) throw new ApiError('INVALID_USER_CREDENTIALS');
      return tokens.issue({ type: 'USER', id: user.id, tenantId: user.tenantId, name: user.name });
    },
  );

  app.post(
    '/:tenantName/admin/api_clients/:clientName',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'Issue a bearer token for a named API client (the production form)',
        security: [],
        params: Type.Object({ tenantName: Type.String(), clientName: Type.String() }),
        body: Type.Object({ secret: Type.String({ minLength: 1, maxLength: 500 }) }),
        response: {
          200: Type.Object({ clientName: Type.String(), token: Type.String(), enabled: Type.Boolean(), expiresAt: DateTime }),
          ...tokenErrors,
        },
      },
    },
    async (request) => {
      const { tenantName, clientName } = request.params;
      const issued = await clientToken(await findClientByName(db, tenantName, clientName), request.body.secret);
      return { clientName, token: issued.token, enabled: true, expiresAt: issued.expiresAt };
    },
  );
};

export default authRoutes;
