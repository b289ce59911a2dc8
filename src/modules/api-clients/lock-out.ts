import type { TenantContext } from '../../http/context.ts';
import { permissionsFromGrants } from '../../tenancy/access.ts';
import type { GrantInput } from '../../tenancy/store.ts';
import { listInstances } from '../../tenancy/tenancy.ts';
import { ApiError } from '../../wire/errors.ts';
import { policyGrants } from './store.ts';

/**
 * A client changing itself through these routes may not lock itself out: disabling itself ends
 * its own tokens at once, and roles that no longer grant API_CLIENT_WRITE (in any instance) leave
 * it unable to undo the change. Either could then be repaired only by another administrator or
 * the CLI, so both are refused, as a formation publish refuses to take FORMATION_WRITE from its
 * publisher (modules/formation/lock-out.ts). Other callers' changes, users' included, are not
 * checked: the caller keeps its own way back. It runs before the write (formations are read
 * through the services, outside the write's transaction), on the request alone.
 */
export async function refuseSelfLockOut(
  ctx: TenantContext,
  clientId: string,
  change: { enabled?: boolean | undefined; grants?: GrantInput[] | undefined },
): Promise<void> {
  const { caller } = ctx;
  if (caller?.type !== 'API_CLIENT' || caller.id !== clientId) return;
  if (change.enabled === false) {
    throw new ApiError(
      'API_CLIENT_LOCK_OUT',
      { clientId, field: 'enabled' },
      'A client cannot disable itself: its own token would stop working and nothing could enable it again but another administrator',
    );
  }
  if (!change.grants) return;
  const grants = [
    ...change.grants.map((grant) => ({ instance_id: grant.instanceId, grant_type: grant.type, name: grant.name })),
    ...(await policyGrants(ctx.db, ctx.tenant.id, clientId)),
  ];
  for (const instance of await listInstances(ctx.db, ctx.tenant.id)) {
    const own = grants.filter((grant) => grant.instance_id === instance.id);
    if (own.length === 0) continue;
    const formation = await ctx.services.currentFormation(instance);
    if (permissionsFromGrants(formation, own).includes('API_CLIENT_WRITE')) return;
  }
  throw new ApiError(
    'API_CLIENT_LOCK_OUT',
    { clientId, field: 'roles' },
    'These roles would take API_CLIENT_WRITE from the calling client, which could then no longer change its roles back',
  );
}
