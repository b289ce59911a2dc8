import type { FastifyRequest } from 'fastify';
import { systemContext, type TenantContext } from '../../../http/context.ts';
import type { Services } from '../../../http/services.ts';
import type { Tenant } from '../../../tenancy/tenancy.ts';
import { ApiError } from '../../../wire/errors.ts';
import { write } from '../../../work/write.ts';
import { saveUser } from '../../users/index.ts';
import { type IdentityProviderRow, linkedUser, linkIdentity, type SsoUser, subjectsOf, userByEmail } from './store.ts';

/**
 * Which user a person signing in at an identity provider is (docs/identity.md, "Single sign-on"):
 * by their verified email, or by their subject once linked, as the provider says; a new user when
 * the provider creates them. The link and a new user are written through the unit of work, audited
 * under `SYSTEM:single-sign-on`; the sign-in itself writes nothing else.
 */

/** What the provider's ID token (or userinfo) says of the person. */
export interface PersonClaims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  given_name?: unknown;
  family_name?: unknown;
}

export type Refusal =
  /** No user is this person, and the provider does not create users. */
  | 'UNKNOWN'
  /** The user is disabled, or may not sign in through single sign-on (`ssoAccess`). */
  | 'NOT_ALLOWED'
  /** Matching by subject: the user with this email is already another person at the provider. */
  | 'OTHER_PERSON';

export type Match = { user: SsoUser } | { refused: Refusal };

const ACTOR = 'SYSTEM:single-sign-on';

/** The email the provider vouches for: none when it says the email is not verified. */
function verifiedEmail(claims: PersonClaims): string | undefined {
  if (typeof claims.email !== 'string' || claims.email === '' || claims.email_verified === false) return undefined;
  // Some providers send the flag as text.
  if (claims.email_verified === 'false') return undefined;
  return claims.email;
}

const mayUse = (user: SsoUser): Match => (user.enabled && user.ssoAccess ? { user } : { refused: 'NOT_ALLOWED' });

export async function matchPerson(
  services: Services,
  where: { tenant: Tenant; instanceId: string },
  provider: IdentityProviderRow,
  claims: PersonClaims,
  request: FastifyRequest,
): Promise<Match> {
  const tenantId = where.tenant.id;
  const ctx = writerOf(services, where, request);
  const linked = await linkedUser(services.db, tenantId, provider.id, claims.sub);
  // By subject: once linked, the subject alone decides (the email at the provider may change or be reused).
  if (provider.match_claim === 'sub' && linked) return mayUse(linked);
  const email = verifiedEmail(claims);
  const user = email ? await userByEmail(services.db, tenantId, email) : undefined;
  if (user) {
    const allowed = mayUse(user);
    if ('refused' in allowed) return allowed;
    if (provider.match_claim === 'sub' && (await subjectsOf(services.db, tenantId, provider.id, user.id)).length > 0) {
      return { refused: 'OTHER_PERSON' };
    }
    if (linked?.id !== user.id) await link(ctx, provider, claims.sub, user.id);
    return { user };
  }
  if (!provider.create_users || !email) return { refused: 'UNKNOWN' };
  const created = await createUser(ctx, email, claims);
  if (!created) return { refused: 'UNKNOWN' };
  await link(ctx, provider, claims.sub, created.id);
  return { user: created };
}

/** The writes of a sign-in act as the system, within the instance, on the request's id. */
function writerOf(services: Services, where: { tenant: Tenant; instanceId: string }, request: FastifyRequest): TenantContext {
  const base = systemContext(services, where.tenant, undefined, request.log);
  return {
    ...base,
    actor: { ...base.actor, instanceId: where.instanceId, name: ACTOR, requestId: request.id, method: 'GET', route: null },
  };
}

async function link(ctx: TenantContext, provider: IdentityProviderRow, subject: string, userId: string): Promise<void> {
  await write(ctx, async (w) => {
    await linkIdentity(w.db, { tenant_id: ctx.tenant.id, provider_id: provider.id, subject, user_id: userId, created_at: w.now });
    w.changed({ action: 'USER_IDENTITY_LINKED', entityType: 'USER', entityId: userId });
  });
}

const text = (value: unknown, max: number) => (typeof value === 'string' && value.trim() ? value.trim().slice(0, max) : null);

/**
 * A new user for the person: named after their email (a username takes no space or slash), no
 * password, no roles (an administrator gives them some), allowed single sign-on. Undefined when
 * the username or email is another user's already (the users' own check).
 */
async function createUser(ctx: TenantContext, email: string, claims: PersonClaims): Promise<SsoUser | undefined> {
  const username = email.toLowerCase().replace(/[\s/]/g, '-').slice(0, 100);
  try {
    const user = await saveUser(ctx, {
      username,
      email,
      firstName: text(claims.given_name, 255),
      lastName: text(claims.family_name, 255),
      passwordAccess: false,
      ssoAccess: true,
      roles: [],
    });
    return { id: user.id, enabled: true, ssoAccess: true };
  } catch (error) {
    if (error instanceof ApiError && error.errorCode === 'DUPLICATE_VALUE') return undefined;
    throw error;
  }
}
