import { systemActor } from '../events/audit.ts';
import { type Context, systemContext, type TenantContext } from '../http/context.ts';
import type { Services } from '../http/services.ts';

/** Background work writes as SYSTEM:jobs in the tenant whose job it is, or undefined when the tenant is gone. */
export async function jobContext(services: Services, tenantId: string): Promise<TenantContext | undefined> {
  const tenant = await services.tenantById(tenantId);
  if (!tenant) return undefined;
  return { ...systemContext(services, tenant), actor: systemActor(tenant.id, null, 'SYSTEM:jobs') };
}

/**
 * The same in one instance (a message's send, a provider's report): its writes, audit rows and
 * events name the instance. Undefined when the tenant or the instance is gone.
 */
export async function instanceJobContext(
  services: Services,
  scope: { tenantId: string; instanceId: string },
  name = 'SYSTEM:jobs',
): Promise<Context | undefined> {
  const tenant = await services.tenantById(scope.tenantId);
  const instance = tenant && (await services.instanceById(scope.tenantId, scope.instanceId));
  if (!tenant || !instance) return undefined;
  return { ...systemContext(services, tenant, instance), actor: systemActor(tenant.id, instance.id, name) };
}
