import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface Tenant {
  id: string;
  name: string;
}

export interface Instance {
  tenantId: string;
  id: string;
  name: string;
  description: string | null;
  currentFormationVersion: number | null;
}

/**
 * Names that cannot be tenants or instances because the router gives them another meaning:
 * `/auth/token`, `/{tenant}/admin/...` and the server's own pages.
 */
export const reservedTenantNames = new Set(['auth', 'health', 'metrics', 'docs', 'openapi.json', 'admin', 'console']);
export const reservedInstanceNames = new Set(['admin', 'auth']);
export const tenantNamePattern = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export async function findTenantByName(db: Kysely<DB>, name: string): Promise<Tenant | undefined> {
  return db.selectFrom('tenants').select(['id', 'name']).where('name', '=', name).executeTakeFirst();
}

export async function findTenantById(db: Kysely<DB>, id: string): Promise<Tenant | undefined> {
  return db.selectFrom('tenants').select(['id', 'name']).where('id', '=', id).executeTakeFirst();
}

export async function findInstanceByName(db: Kysely<DB>, tenantId: string, name: string): Promise<Instance | undefined> {
  const row = await db
    .selectFrom('instances')
    .select(['tenant_id', 'id', 'name', 'description', 'current_formation_version'])
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row && toInstance(row);
}

export async function findInstanceById(db: Kysely<DB>, tenantId: string, id: string): Promise<Instance | undefined> {
  const row = await db
    .selectFrom('instances')
    .select(['tenant_id', 'id', 'name', 'description', 'current_formation_version'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toInstance(row);
}

export async function listInstances(db: Kysely<DB>, tenantId: string): Promise<Instance[]> {
  const rows = await db
    .selectFrom('instances')
    .select(['tenant_id', 'id', 'name', 'description', 'current_formation_version'])
    .where('tenant_id', '=', tenantId)
    .orderBy('name')
    .execute();
  return rows.map(toInstance);
}

function toInstance(row: {
  tenant_id: string;
  id: string;
  name: string;
  description: string | null;
  current_formation_version: number | null;
}): Instance {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    name: row.name,
    description: row.description,
    currentFormationVersion: row.current_formation_version,
  };
}
