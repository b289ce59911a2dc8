import { Type } from 'typebox';
import { settingsOf } from '../../config.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { spendVerificationTime, verifySecret } from '../../tenancy/secrets.ts';
import { ApiError, badField, ErrorBody } from '../../wire/errors.ts';
import { DateTime } from '../../wire/schemas.ts';
import mfaRoutes, { MfaCode } from './mfa-routes.ts';
import policyRoutes from './policy-routes.ts';
import { tokenLimitSettings } from './settings.ts';
import { userSignIn } from './sign-in.ts';
import smartRoutes from './smart.ts';
import { type ClientForLogin, findClientByKey, findClientInTenant } from './store.ts';
import { checkedAttempt, type TokenSubject } from './token-limit.ts';

const TokenRequest = Type.Object(
  {
    apiClient: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'API client key' })),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    tenantName: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    code: Type.Optional(MfaCode),
  },
  {
    description:
      'Either `{apiClient, secret}` or, for a user with passwordAccess, `{tenantName, username, password}`, ' +
      'with `code` once the user has a confirmed second factor (docs/identity.md "MFA").',
  },
);

const TokenResponse = Type.Object({ token: Type.String(), expiresAt: DateTime });

const tokenErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

const limits =
  'Limits: more than 100 requests with the right secret within 5 minutes block the caller for 5 minutes (000); ' +
  'more than 10 wrong secrets within 5 minutes block that source address for that caller for 5 minutes, ' +
  'so failures from one place never lock the client out elsewhere. Both answer 429 TOO_MANY_REQUESTS with Retry-After. ' +
  'A wrong key or secret is 401 INVALID_CLIENT_CREDENTIALS (never a token-refresh code).';

const userLimits =
  'A user with a confirmed second factor who sends no `code` gets 401 MFA_REQUIRED, a wrong or used one ' +
  '401 INVALID_MFA_CODE; wrong codes count as wrong secrets. Where the tenant requires a second factor ' +
  '(`/{tenantName}/admin/sign-in-policy`), a user without one gets 403 MFA_ENROLLMENT_REQUIRED.';

/**
 * The two token routes of DECISIONS §4. Neither ever answers with the two "refresh" codes:
 * a wrong secret is INVALID_CLIENT_CREDENTIALS, so a client does not loop refreshing.
 */
const authRoutes: AreaPlugin = async (app, options) => {
  const { services } = options;
  // Its own scope: OAuth's form bodies and error format stay there.
  await app.register(smartRoutes, options);
  await app.register(mfaRoutes, options);
  await app.register(policyRoutes, options);
  const { db, tokens } = services;
  const signedInUser = userSignIn(services);
  const limit = settingsOf(services.config, tokenLimitSettings);

  const checked = (subject: TokenSubject | undefined, source: string, matches: () => Promise<boolean>) =>
    checkedAttempt(db, limit, services.clock.now(), { subject, source, matches });

  async function clientToken(client: ClientForLogin | undefined, secret: string, source: string) {
    const subject = client && { tenantId: client.tenantId, principalId: client.id };
    // An unknown key costs as much time as a known one, so timing does not tell keys apart.
    const matches = async () =>
      client ? (await verifySecret(secret, client.secretHash)) && client.enabled : spendVerificationTime(secret);
    if (!(await checked(subject, source, matches)) || !client) throw new ApiError('INVALID_CLIENT_CREDENTIALS');
    return tokens.issue({ type: 'API_CLIENT', id: client.id, tenantId: client.tenantId, name: `API_CLIENT:${client.name}` });
  }

  app.post(
    '/auth/token',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'Issue a bearer token (valid 1 hour; 100 requests per 5 minutes per caller)',
        description: `${limits} ${userLimits}`,
        security: [],
        body: TokenRequest,
        response: { 200: TokenResponse, ...tokenErrors },
      },
    },
    async (request) => {
      const { apiClient, secret, tenantName, username, password, code } = request.body;
      if (apiClient !== undefined) {
        if (secret === undefined) throw badField('body.secret', 'is required with apiClient');
        return clientToken(await findClientByKey(db, apiClient), secret, request.ip);
      }
      if (username === undefined && tenantName === undefined) {
        throw badField('body.apiClient', 'give apiClient and secret, or tenantName, username and password');
      }
      if (!tenantName) throw badField('body.tenantName', 'is required with username');
      if (!username) throw badField('body.username', 'is required with tenantName');
      if (!password) throw badField('body.password', 'is required with username');
      const { user } = await signedInUser({ tenantName, username, password, code }, request.ip);
      return tokens.issue({ type: 'USER', id: user.id, tenantId: user.tenantId, name: user.name });
    },
  );

  app.post(
    '/:tenantName/admin/api_clients/:clientName',
    {
      config: { access: { public: true } },
      schema: {
        tags: ['Authentication'],
        summary: 'Issue a bearer token for an API client named by its key or its name (the production form)',
        description: `{clientName} takes the client's key, as production clients send it, or its name. ${limits}`,
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
      const tenant = await services.tenant(tenantName);
      const client = tenant && (await findClientInTenant(db, tenant.id, clientName));
      const issued = await clientToken(client, request.body.secret, request.ip);
      return { clientName, token: issued.token, enabled: true, expiresAt: issued.expiresAt };
    },
  );
};

export default authRoutes;
