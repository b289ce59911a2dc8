import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { isPermission, type Permission } from '../formation/permissions.ts';
import type { Formation } from '../formation/schemas.ts';

export type CallerType = 'API_CLIENT' | 'USER';

/** Who is calling, as the token says. */
export interface Caller {
  type: CallerType;
  id: string;
  tenantId: string;
  /** What records show as createdByName: `API_CLIENT:<name>` for clients (prod), the full name for users. */
  name: string;
  /**
   * The SMART scopes its token was granted (`system/Patient.rs`, an app's `user/*.rs`; http/scopes.ts),
   * which narrow what its roles allow; absent for Cairn's own tokens, which are not narrowed.
   */
  scopes?: readonly string[];
  /** The patient an app's token was launched with: its `patient/` scopes reach this one's records only. */
  patient?: string;
  /** The app a user's token was issued to (modules/apps): the access log names it, acting for the user. */
  app?: { id: string; name: string };
}

/** What a caller may do: in one instance, or (for tenant admin routes) across all of them. */
export interface Access {
  /** False when the client or user was disabled or deleted after the token was issued. */
  active: boolean;
  /** Instances where the caller holds at least one role or policy. */
  instanceIds: ReadonlySet<string>;
  permissions: ReadonlySet<Permission>;
  /**
   * A user's own time zone (users.timezone), read with the access so that `local…` fields cost no
   * query of their own; absent for API clients and users without one.
   */
  timezone?: string | null;
}

interface Grant {
  instance_id: string;
  current_formation_version: number | null;
  grant_type: 'SECURITY_ROLE' | 'SECURITY_POLICY';
  name: string;
}

/**
 * Resolves a caller's grants through the current formation of each instance: roles name
 * policies, policies name permissions (DECISIONS §5). Grants outside their effective window
 * count for nothing.
 */
export async function loadAccess(
  db: Kysely<DB>,
  formationOf: (instanceId: string, version: number | null) => Promise<Formation>,
  caller: { tenantId: string; type: CallerType; id: string },
  instanceId: string | undefined,
): Promise<Access> {
  const { active, timezone } = await callerState(db, caller);
  if (!active) return { active, instanceIds: new Set(), permissions: new Set() };

  let query = db
    .selectFrom('access_grants as g')
    .innerJoin('instances as i', (join) => join.on('i.tenant_id', '=', caller.tenantId).onRef('i.id', '=', 'g.instance_id'))
    .select(['g.instance_id', 'i.current_formation_version', 'g.grant_type', 'g.name'])
    .where('g.tenant_id', '=', caller.tenantId)
    .where('g.principal_id', '=', caller.id)
    .where((eb) => eb.or([eb('g.effective_date', 'is', null), eb('g.effective_date', '<=', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('g.expiration_date', 'is', null), eb('g.expiration_date', '>', sql<Date>`now()`)]));
  if (instanceId) query = query.where('g.instance_id', '=', instanceId);
  const grants: Grant[] = await query.execute();

  const permissions = new Set<Permission>();
  const byInstance = new Map<string, Grant[]>();
  for (const grant of grants) byInstance.set(grant.instance_id, [...(byInstance.get(grant.instance_id) ?? []), grant]);
  for (const [id, instanceGrants] of byInstance) {
    const formation = await formationOf(id, instanceGrants[0]?.current_formation_version ?? null);
    for (const permission of permissionsFromGrants(formation, instanceGrants)) permissions.add(permission);
  }
  return { active, instanceIds: new Set(byInstance.keys()), permissions, timezone };
}

export function permissionsFromGrants(formation: Formation, grants: Pick<Grant, 'grant_type' | 'name'>[]): Permission[] {
  const policies = new Map((formation.securityPolicies ?? []).map((policy) => [policy.name, policy.permissions]));
  const roles = new Map((formation.roles ?? []).map((role) => [role.name, role.policies]));
  const policyNames = grants.flatMap((grant) =>
    grant.grant_type === 'SECURITY_ROLE' ? (roles.get(grant.name) ?? []) : [grant.name],
  );
  return policyNames.flatMap((name) => policies.get(name) ?? []).filter(isPermission);
}

async function callerState(
  db: Kysely<DB>,
  caller: { tenantId: string; type: CallerType; id: string },
): Promise<{ active: boolean; timezone: string | null }> {
  if (caller.type === 'API_CLIENT') {
    const client = await db
      .selectFrom('api_clients')
      .select('enabled')
      .where('tenant_id', '=', caller.tenantId)
      .where('id', '=', caller.id)
      .executeTakeFirst();
    return { active: client?.enabled === true, timezone: null };
  }
  const user = await db
    .selectFrom('users')
    .select(['enabled', 'deleted_at', 'timezone'])
    .where('tenant_id', '=', caller.tenantId)
    .where('id', '=', caller.id)
    .executeTakeFirst();
  return { active: user?.enabled === true && user.deleted_at === null, timezone: user?.timezone ?? null };
}
