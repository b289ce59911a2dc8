import type { FastifyRequest } from 'fastify';
import { settingsOf } from '../../config.ts';
import { systemContext, type TenantContext } from '../../http/context.ts';
import type { Services } from '../../http/services.ts';
import { spendVerificationTime, verifySecret } from '../../tenancy/secrets.ts';
import type { Tenant } from '../../tenancy/tenancy.ts';
import { ApiError } from '../../wire/errors.ts';
import { checkSecondFactor, confirmTotp } from './mfa.ts';
import { tokenLimitSettings } from './settings.ts';
import { findUserForLogin, type UserForLogin } from './store.ts';
import { checkedAttempt } from './token-limit.ts';

/** What a user signs in with: a password, and a one-time code once they have a second factor. */
export interface PasswordSignIn {
  tenantName: string;
  username: string;
  password: string;
  /** A TOTP code or a recovery code. */
  code?: string | undefined;
}

export interface SignedInUser {
  tenant: Tenant;
  user: UserForLogin;
}

/**
 * A user's sign-in, as `/auth/token` and the MFA routes take it: the password, then the second
 * factor when the user has one, both under the token limits (token-limit.ts). A wrong code counts
 * as a wrong secret from that address, so guessing codes ends in 429 as guessing passwords does.
 * A right password without a code counts as a right request (the caller's own limit) and answers
 * MFA_REQUIRED; a client then sends the same body with `code`. Where the tenant requires a second
 * factor (policy.ts), a user without one is refused (MFA_ENROLLMENT_REQUIRED) but when `enrolling`:
 * the MFA routes, through which they add it.
 */
export function userSignIn(services: Services, { enrolling = false }: { enrolling?: boolean } = {}) {
  const limit = settingsOf(services.config, tokenLimitSettings);
  return async function signedInUser(body: PasswordSignIn, source: string): Promise<SignedInUser> {
    const { tenantName, username, password, code } = body;
    // The tenant by its name first (the node's cache), then the user in it (one shard on Citus).
    const tenant = await services.tenant(tenantName);
    const user = tenant && (await findUserForLogin(services.db, tenant.id, username));
    const subject = user && { tenantId: user.tenantId, principalId: user.id };
    let refusal: 'MFA_REQUIRED' | 'INVALID_MFA_CODE' | 'MFA_ENROLLMENT_REQUIRED' | undefined;
    const matches = async () => {
      const passwordRight = user?.passwordHash
        ? (await verifySecret(password, user.passwordHash)) && user.mayUsePassword
        : await spendVerificationTime(password);
      if (!passwordRight || !user) return passwordRight;
      // The tenant requires a factor the user has not added: only the MFA routes (enrolling) go on.
      if (!user.secondFactor && user.mfaRequired && !enrolling) refusal = 'MFA_ENROLLMENT_REQUIRED';
      if (!user.secondFactor) return true;
      if (code === undefined) {
        refusal = 'MFA_REQUIRED';
        return true;
      }
      if (await checkSecondFactor(services, { tenantId: user.tenantId, userId: user.id }, code)) return true;
      refusal = 'INVALID_MFA_CODE';
      return false;
    };
    const ok = await checkedAttempt(services.db, limit, services.clock.now(), { subject, source, matches });
    if (refusal) throw new ApiError(refusal);
    if (!ok || !user || !tenant) throw new ApiError('INVALID_USER_CREDENTIALS');
    return { tenant, user };
  };
}

/**
 * The second step of a sign-in whose password was right and whose user has a second factor (the
 * authorization servers' code page, modules/apps): the code, under the same limits. True when it is
 * right; 429 (ApiError) when the limits say so.
 */
export function secondFactorSignIn(services: Services) {
  const limit = settingsOf(services.config, tokenLimitSettings);
  return (owner: { tenantId: string; userId: string }, code: string, source: string): Promise<boolean> =>
    checkedAttempt(services.db, limit, services.clock.now(), {
      subject: { tenantId: owner.tenantId, principalId: owner.userId },
      source,
      matches: () => checkSecondFactor(services, owner, code),
    });
}

/**
 * A first factor confirmed during a sign-in (the authorization servers' enrolment page, where the
 * tenant requires one): the code under the same limits as a sign-in's. The recovery codes, or
 * undefined for a wrong code; 429 (ApiError) when the limits say so.
 */
export function confirmationSignIn(services: Services) {
  const limit = settingsOf(services.config, tokenLimitSettings);
  return async (ctx: TenantContext, userId: string, code: string, source: string): Promise<string[] | undefined> => {
    let recoveryCodes: string[] | undefined;
    await checkedAttempt(services.db, limit, services.clock.now(), {
      subject: { tenantId: ctx.tenant.id, principalId: userId },
      source,
      matches: async () => {
        try {
          recoveryCodes = await confirmTotp(ctx, userId, code);
          return true;
        } catch (error) {
          if (error instanceof ApiError && error.errorCode === 'INVALID_MFA_CODE') return false;
          throw error;
        }
      },
    });
    return recoveryCodes;
  };
}

/**
 * The context a signed-in user's own change is written in (the MFA routes, which no bearer token
 * opens): the user's tenant, the audit naming the user. It grants no permission: what it writes is
 * the user's own.
 */
export function signedInContext(services: Services, request: FastifyRequest, { tenant, user }: SignedInUser): TenantContext {
  return {
    ...systemContext(services, tenant, undefined, request.log),
    caller: { type: 'USER', id: user.id, tenantId: tenant.id, name: user.name },
    actor: {
      tenantId: tenant.id,
      instanceId: null,
      type: 'USER',
      id: user.id,
      name: user.name,
      requestId: request.id,
      method: request.method,
      route: request.routeOptions.url ?? null,
    },
    can: () => false,
  };
}
