import { systemActor } from '../events/audit.ts';
import { systemContext, type TenantContext } from '../http/context.ts';
import type { Services } from '../http/services.ts';

/** Background work writes as SYSTEM:jobs in the tenant whose job it is, or undefined when the tenant is gone. */
export async function jobContext(services: Services, tenantId: string): Promise<TenantContext | undefined> {
  const tenant = await services.tenantById(tenantId);
  if (!tenant) return undefined;
  return { ...systemContext(services, tenant), actor: systemActor(tenant.id, null, 'SYSTEM:jobs') };
}
