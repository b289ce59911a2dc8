import { parseScope } from '../../../http/scopes.ts';
import type { OpaqueTokens } from '../../../http/services.ts';
import { findAccessToken } from '../store.ts';
import { CONSOLE_CLIENT_ID } from './console.ts';

/** oidc-provider's opaque tokens are base64url; anything else is no token of theirs, and is not looked up. */
const OPAQUE = /^[A-Za-z0-9_-]{20,200}$/;

/**
 * An opaque access token as the access hook takes it. An app's: the user it acts for, narrowed to
 * the resource scopes the user allowed and a `patient/` scope's patient (http/scopes.ts), naming
 * the app, on its instance's routes only. The console's (console.ts): the user, as their own token,
 * on the tenant's routes. Looked up on every request (one statement, the app joined), so a revoked
 * token, a deleted or disabled app, or an expired token stops at once.
 */
export const appTokens: OpaqueTokens = async (services, token, { tenant, instance }) => {
  if (!OPAQUE.test(token)) return undefined;
  const found = await findAccessToken(services.db, tenant.id, token, services.clock.now(), CONSOLE_CLIENT_ID);
  if (!found) return undefined;
  const user = { type: 'USER', id: found.userId, tenantId: tenant.id, name: found.userName } as const;
  if (found.clientId === CONSOLE_CLIENT_ID) return user;
  if (!found.app || instance?.id !== found.instanceId) return undefined;
  return {
    ...user,
    scopes: found.scope.split(' ').filter((scope) => parseScope(scope)),
    ...(found.patient ? { patient: found.patient } : {}),
    app: found.app,
  };
};
