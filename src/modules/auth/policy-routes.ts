import { tenantContextOf } from '../../http/context.ts';
import type { AreaPlugin } from '../../http/plugin.ts';
import { needs } from '../../http/route-access.ts';
import { ErrorBody } from '../../wire/errors.ts';
import { TenantParams } from '../../wire/schemas.ts';
import { readSignInPolicy, SignInPolicy, setSignInPolicy } from './policy.ts';

const tags = ['Users'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** The tenant's sign-in policy (policy.ts): read by whoever reads users, set by whoever provisions them. */
const policyRoutes: AreaPlugin = async (app) => {
  app.get(
    '/:tenantName/admin/sign-in-policy',
    {
      config: needs('USER_READ'),
      schema: {
        tags,
        summary: "The tenant's sign-in policy: whether users must have a second factor",
        params: TenantParams,
        response: { 200: SignInPolicy, ...errors },
      },
    },
    async (request) => readSignInPolicy(tenantContextOf(request)),
  );

  app.put(
    '/:tenantName/admin/sign-in-policy',
    {
      config: needs('USER_PROVISION'),
      schema: {
        tags,
        summary: "Set the tenant's sign-in policy",
        description:
          "With `mfaRequired`, a user who signs in with a password and has no second factor gets 403 MFA_ENROLLMENT_REQUIRED from `/auth/token` (and a page saying so from an app's sign-in) until they add one through `/auth/mfa/totp`, which still signs them in by password. API clients and single sign-on are not concerned.",
        params: TenantParams,
        body: SignInPolicy,
        response: { 200: SignInPolicy, ...errors },
      },
    },
    async (request) => setSignInPolicy(tenantContextOf(request), request.body),
  );
};

export default policyRoutes;
