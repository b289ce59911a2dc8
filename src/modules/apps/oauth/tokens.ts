import { parseScope } from '../../../http/scopes.ts';
import type { OpaqueTokens } from '../../../http/services.ts';
import { findAccessToken } from '../store.ts';

/** oidc-provider's opaque tokens are base64url; anything else is no token of theirs, and is not looked up. */
const OPAQUE = /^[A-Za-z0-9_-]{20,200}$/;

/**
 * An app's access token as the access hook takes it: the user it acts for, narrowed to the resource
 * scopes the user allowed and a `patient/` scope's patient (http/scopes.ts), naming the app. Looked up on every request (one statement, the app
 * joined), so a revoked token, a deleted or disabled app, or an expired token stops at once.
 */
export const appTokens: OpaqueTokens = async (services, token, { tenant, instance }) => {
  if (!OPAQUE.test(token)) return undefined;
  const found = await findAccessToken(services.db, { tenantId: tenant.id, instanceId: instance.id }, token, services.clock.now());
  if (!found) return undefined;
  return {
    type: 'USER',
    id: found.userId,
    tenantId: tenant.id,
    name: found.userName,
    scopes: found.scope.split(' ').filter((scope) => parseScope(scope)),
    ...(found.patient ? { patient: found.patient } : {}),
    app: { id: found.appId, name: found.appName },
  };
};
