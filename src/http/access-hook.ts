import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Instance } from '../tenancy/tenancy.ts';
import { ApiError } from '../wire/errors.ts';
import { callerActor } from './access-log.ts';
import { requestContext } from './context.ts';
import type { AccessTable } from './route-access.ts';
import { scopesAllow } from './scopes.ts';
import type { Services } from './services.ts';
import { isCairnToken } from './tokens.ts';

const TENANT_ROUTE = /^\/:tenantName\//;
const INSTANCE_ROUTE = /^\/:tenantName\/:instanceName(\/|$)/;

/**
 * Authentication, tenancy and permission checks, in that order, for every route under
 * `/{tenantName}/`. Each such route declares its access in its own options (`needs(...)`);
 * start-up fails when one does not, so no route is ever left open by omission. The declarations
 * are gathered into `accessTable`, which the API docs show.
 */
export function registerAccessControl(app: FastifyInstance, services: Services, accessTable: AccessTable): void {
  app.decorateRequest('context', null);

  app.addHook('onRoute', (route) => {
    if (!TENANT_ROUTE.test(route.url)) return;
    const rule = route.config?.access;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (!rule) throw new Error(`${method} ${route.url} declares no access (config: needs(...))`);
      if (accessTable.has(`${method} ${route.url}`)) throw new Error(`${method} ${route.url} is registered twice`);
      accessTable.set(`${method} ${route.url}`, rule);
    }
  });

  app.addHook('onRequest', async (request) => {
    const rule = request.routeOptions.config.access;
    if (!rule || rule.public) return;
    const token = bearerToken(request);
    const params = request.params as { tenantName: string; instanceName?: string };
    const caller = isCairnToken(token) ? await services.tokens.verify(token) : await appCaller(services, request, token, params);
    const tenant = await services.tenant(params.tenantName);
    if (!tenant) throw new ApiError('TENANT_NOT_FOUND', { tenantName: params.tenantName });
    if (tenant.id !== caller.tenantId) throw new ApiError('TENANT_ACCESS_DENIED', { tenantName: tenant.name });

    let instance: Instance | undefined;
    if (INSTANCE_ROUTE.test(request.routeOptions.url ?? '')) {
      instance = await services.instance(tenant.id, params.instanceName ?? '');
      if (!instance) throw new ApiError('INSTANCE_NOT_FOUND', { instanceName: params.instanceName });
    }
    request.accessAttempt = { actor: callerActor(caller), tenantId: tenant.id, instanceId: instance?.id ?? null };
    const access = await services.accessOf(caller, instance?.id);
    // A client disabled (or user deleted) since the token was issued: the token is no longer good.
    if (!access.active) throw new ApiError('NOT_VALID_JSON_WEB_TOKEN');
    if (instance && !access.instanceIds.has(instance.id)) {
      throw new ApiError('INSTANCE_ACCESS_DENIED', { instanceName: instance.name });
    }
    if (rule.callers && rule.callers !== caller.type) {
      throw caller.type === 'API_CLIENT'
        ? new ApiError('ACCESS_FOR_API_CLIENT_RESTRICTED', {
            clientId: caller.id,
            clientType: 'API_CLIENT',
            organizationName: tenant.name,
            requestURI: request.url.split('?')[0],
          })
        : // The same code the other way (the export is for API clients only): clients check one code.
          new ApiError(
            'ACCESS_FOR_API_CLIENT_RESTRICTED',
            { userId: caller.id, clientType: 'USER', organizationName: tenant.name, requestURI: request.url.split('?')[0] },
            'This API is for API clients only',
          );
    }
    if (caller.scopes && !scopesAllow(caller.scopes, rule.scope)) {
      throw new ApiError(
        'ACCESS_DENIED',
        { scope: rule.scope ?? null },
        rule.scope ? `The token's scopes do not include ${rule.scope}` : 'A token with SMART scopes is for the FHIR API only',
      );
    }
    if (rule.permission && !access.permissions.has(rule.permission)) {
      throw new ApiError('ACCESS_DENIED', { permission: rule.permission }, `The caller lacks the permission ${rule.permission}`);
    }
    if (rule.anyOf && !rule.anyOf.some((permission) => access.permissions.has(permission))) {
      throw new ApiError('ACCESS_DENIED', { permissions: rule.anyOf }, `The caller lacks every one of ${rule.anyOf.join(', ')}`);
    }
    request.context = requestContext(services, request, caller, access, tenant, instance);
  });
}

/**
 * An opaque token (http/services.ts `OpaqueTokens`): an app's, good only on its instance's routes,
 * or the console's, good on its tenant's (modules/apps resolves both, in the tenant the route names).
 */
async function appCaller(
  services: Services,
  request: FastifyRequest,
  token: string,
  params: { tenantName: string; instanceName?: string },
) {
  const tenant = params.tenantName ? await services.tenant(params.tenantName) : undefined;
  const instance =
    tenant && INSTANCE_ROUTE.test(request.routeOptions.url ?? '')
      ? await services.instance(tenant.id, params.instanceName ?? '')
      : undefined;
  const caller = tenant && (await services.opaqueCaller(token, { tenant, instance }));
  if (!caller) throw new ApiError('NOT_VALID_JSON_WEB_TOKEN');
  return caller;
}

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) throw new ApiError('NOT_VALID_JSON_WEB_TOKEN');
  return match[1];
}
