import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import { likeContains, PREPARED } from '../../db/sql.ts';
import type { Writing } from '../../events/work.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import { holdsRole } from '../../tenancy/store.ts';
import type { ApiClientFilter } from './schemas.ts';

/**
 * The API clients area's SQL, each query naming the tenant. `api_clients` and `api_client_keys`
 * are the foundation's (migration 0001); the CLI writes them too (tenancy/store.ts#createApiClient).
 */

export type ApiClientRow = Row<'api_clients'>;

/** A role as JSON: its times are text (the view turns them back into Dates). */
export interface RoleJson {
  name: string;
  primary_role: boolean;
  effective_date: string | null;
  expiration_date: string | null;
  created_at: string;
  updated_at: string;
  instance_name: string;
}

export type ApiClientReadRow = ApiClientRow & { roles: RoleJson[] };

/**
 * Sort keys: API name → SQL. A tenant has a handful of clients, read through its
 * (tenant_id, name) index; no list of them is long enough to need another.
 */
export const sortableClientFields: Record<string, string> = {
  name: 'c.name',
  createdAt: 'c.created_at',
  updatedAt: 'c.updated_at',
};

/** A client's roles composed into the statement that reads it (an index lookup on access_grants' key). */
function clientRoles(tenantId: string, alias = 'c'): RawBuilder<unknown> {
  const c = sql.raw(alias);
  return sql`(SELECT coalesce(json_agg(json_build_object(
      'name', g.name, 'primary_role', g.primary_role,
      'effective_date', g.effective_date, 'expiration_date', g.expiration_date,
      'created_at', g.created_at, 'updated_at', g.updated_at, 'instance_name', i.name
    ) ORDER BY i.name, g.name), '[]')
    FROM access_grants g JOIN instances i ON i.tenant_id = ${tenantId} AND i.id = g.instance_id
    WHERE g.tenant_id = ${tenantId} AND g.principal_id = ${c}.id AND g.grant_type = 'SECURITY_ROLE') AS roles`;
}

export async function listClients(
  db: Kysely<DB>,
  tenantId: string,
  filter: Omit<ApiClientFilter, 'page' | 'size' | 'sort'>,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: ApiClientReadRow[]; total: number }> {
  let query = db.selectFrom('api_clients as c').where('c.tenant_id', '=', tenantId);
  const term = filter.name?.trim();
  if (term) query = query.where(sql<SqlBool>`lower(c.name) LIKE ${likeContains(term.toLowerCase())}`);
  if (filter.enabled !== undefined) query = query.where('c.enabled', '=', filter.enabled);
  if (filter.roleName) query = query.where(holdsRole('c', tenantId, filter.roleName));
  const list = {
    base: query as never,
    table: 'api_clients',
    alias: 'c',
    tenantId,
    searched: Boolean(term),
    extra: [clientRoles(tenantId)],
  };
  const order = { keys: sort, fallback: [{ column: 'c.name', direction: 'asc' as const }], tieBreaker: 'c.id' };
  return filteredPage<ApiClientReadRow>(db as Kysely<never>, list, order, paging);
}

/** One client with its roles: one statement. */
export async function readClient(db: Kysely<DB>, tenantId: string, id: string): Promise<ApiClientReadRow | undefined> {
  const { rows } = await sql<ApiClientReadRow>`${sql.raw(PREPARED)}
    SELECT c.*, ${clientRoles(tenantId)} FROM api_clients c WHERE c.tenant_id = ${tenantId} AND c.id = ${id}`.execute(db);
  return rows[0];
}

/** The client's row, locked until the write's commit so two changes of one client run one after the other. */
export function lockClient(db: Kysely<DB>, tenantId: string, id: string): Promise<ApiClientRow | undefined> {
  return db
    .selectFrom('api_clients')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Whether another client of the tenant has this name (names are unique per tenant). */
export async function nameTaken(db: Kysely<DB>, tenantId: string, name: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('api_clients').select('id').where('tenant_id', '=', tenantId).where('name', '=', name);
  if (exceptId) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

/** The client and its server-wide key (/auth/token names no tenant: the key leads to it). */
export async function insertClient(
  w: Writing,
  client: { tenantId: string; id: string; name: string; clientKey: string; secretHash: string; jwks?: unknown },
): Promise<void> {
  await w.db
    .insertInto('api_clients')
    .values({
      tenant_id: client.tenantId,
      id: client.id,
      name: client.name,
      client_key: client.clientKey,
      secret_hash: client.secretHash,
      jwks: client.jwks ? JSON.stringify(client.jwks) : null,
      created_at: w.now,
      updated_at: w.now,
    })
    .execute();
  await w.db
    .insertInto('api_client_keys')
    .values({ client_key: client.clientKey, tenant_id: client.tenantId, client_id: client.id })
    .execute();
}

export async function updateClient(
  w: Writing,
  row: ApiClientRow,
  set: { name?: string; enabled?: boolean; secret_hash?: string; jwks?: string | null },
): Promise<void> {
  await w.db
    .updateTable('api_clients')
    .set({ ...set, updated_at: w.now })
    .where('tenant_id', '=', row.tenant_id)
    .where('id', '=', row.id)
    .execute();
}

/** The security policies granted to a client directly (the CLI and these routes grant roles only, so usually none). */
export async function policyGrants(db: Kysely<DB>, tenantId: string, clientId: string) {
  return db
    .selectFrom('access_grants')
    .select(['instance_id', 'grant_type', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('principal_id', '=', clientId)
    .where('grant_type', '=', 'SECURITY_POLICY')
    .execute();
}
