import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../../events/audit.ts';
import type { Formation } from '../../formation/schemas.ts';
import { permissionsFromGrants } from '../../tenancy/access.ts';
import type { FieldError } from '../../wire/errors.ts';

/**
 * What publishing `formation` would break for the callers of this instance: a role or policy
 * still granted to an active client or user that the formation no longer defines, or the
 * publisher losing FORMATION_WRITE. Either would leave the instance unmanageable over the API
 * (every route 403), recoverable only from the CLI, so publish refuses it.
 */
export async function lockOutProblems(
  db: Kysely<DB>,
  actor: Actor,
  instanceId: string,
  formation: Formation,
): Promise<FieldError[]> {
  const grants = await db
    .selectFrom('access_grants as g')
    .leftJoin('api_clients as c', (join) =>
      join.on('c.tenant_id', '=', actor.tenantId).onRef('c.id', '=', 'g.principal_id').on('g.principal_type', '=', 'API_CLIENT'),
    )
    .leftJoin('users as u', (join) =>
      join.on('u.tenant_id', '=', actor.tenantId).onRef('u.id', '=', 'g.principal_id').on('g.principal_type', '=', 'USER'),
    )
    .select(['g.principal_id', 'g.grant_type', 'g.name'])
    .where('g.tenant_id', '=', actor.tenantId)
    .where('g.instance_id', '=', instanceId)
    .where((eb) => eb.or([eb('g.expiration_date', 'is', null), eb('g.expiration_date', '>', sql<Date>`now()`)]))
    .where((eb) => eb.or([eb('c.enabled', '=', true), eb.and([eb('u.enabled', '=', true), eb('u.deleted_at', 'is', null)])]))
    .execute();

  const defined = {
    SECURITY_ROLE: new Set((formation.roles ?? []).map((role) => role.name)),
    SECURITY_POLICY: new Set((formation.securityPolicies ?? []).map((policy) => policy.name)),
  };
  const holders = new Map<string, number>();
  for (const grant of grants) {
    if (defined[grant.grant_type].has(grant.name)) continue;
    const key = `${grant.grant_type === 'SECURITY_ROLE' ? 'roles' : 'securityPolicies'}.${grant.name}`;
    holders.set(key, (holders.get(key) ?? 0) + 1);
  }
  const problems: FieldError[] = [...holders].map(([path, count]) => ({
    path,
    message: `is granted to ${count} active API client(s) or user(s) but the formation does not define it`,
  }));

  if (actor.type !== 'SYSTEM') {
    const own = grants.filter((grant) => grant.principal_id === actor.id);
    if (!permissionsFromGrants(formation, own).includes('FORMATION_WRITE')) {
      problems.push({
        path: 'securityPolicies',
        message: 'would take FORMATION_WRITE from the caller publishing it, who could then no longer edit the formation',
      });
    }
  }
  return problems;
}
