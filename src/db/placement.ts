import { type Kysely, sql } from 'kysely';

/**
 * Which Citus worker holds each tenant: the tenants (a reference table, read on the coordinator)
 * and `extra` ids (the platform's nil tenant), grouped by the node group of their shard of `jobs`
 * (co-located with every tenant table, so the group holds all of a tenant's rows). A look across
 * tenants asked one group at a time reaches that worker alone: when a worker is down, the others'
 * tenants are still served. Both statements read the coordinator's own tables and catalog.
 */
export async function tenantsByWorker<DB>(db: Kysely<DB>, extra: readonly string[]): Promise<string[][]> {
  const { rows: tenants } = await sql<{ id: string }>`SELECT id FROM tenants`.execute(db);
  const ids = [...new Set([...extra, ...tenants.map((tenant) => tenant.id)])];
  const { rows } = await sql<{ tenant_id: string; groupid: number }>`
    SELECT t.id::text AS tenant_id, p.groupid
    FROM unnest(${ids}::uuid[]) AS t(id)
    JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column('jobs', t.id)`.execute(db);
  const groups = new Map<number, string[]>();
  for (const row of rows) groups.set(row.groupid, [...(groups.get(row.groupid) ?? []), row.tenant_id]);
  return [...groups.values()];
}
