import type { Kysely } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';

export interface ClientForLogin {
  tenantId: string;
  id: string;
  name: string;
  clientKey: string;
  secretHash: string;
  enabled: boolean;
  /** The public keys it registered for SMART Backend Services, if any. */
  jwks: { keys: Record<string, unknown>[] } | null;
}

function clientForLogin(
  row: Pick<Row<'api_clients'>, 'tenant_id' | 'id' | 'name' | 'client_key' | 'secret_hash' | 'enabled' | 'jwks'>,
) {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    name: row.name,
    clientKey: row.client_key,
    secretHash: row.secret_hash,
    enabled: row.enabled,
    jwks: row.jwks,
  };
}

/**
 * A client by its key, which is unique across the server (DECISIONS §4): the key leads to its
 * tenant in the global `api_client_keys` (a reference table on Citus), then the client is read in
 * its tenant (one shard), rather than a join that would ask every shard.
 */
export async function findClientByKey(db: Kysely<DB>, clientKey: string): Promise<ClientForLogin | undefined> {
  const key = await db
    .selectFrom('api_client_keys')
    .select(['tenant_id', 'client_id'])
    .where('client_key', '=', clientKey)
    .executeTakeFirst();
  if (!key) return undefined;
  const row = await db
    .selectFrom('api_clients')
    .select(['tenant_id', 'id', 'name', 'client_key', 'secret_hash', 'enabled', 'jwks'])
    .where('tenant_id', '=', key.tenant_id)
    .where('id', '=', key.client_id)
    .executeTakeFirst();
  return row && clientForLogin(row);
}

/**
 * The client a production token path names: `{clientName}` is the client's key in production
 * (DECISIONS §4), and Cairn's own name for it is accepted too. A key wins over a name.
 */
export async function findClientInTenant(
  db: Kysely<DB>,
  tenantId: string,
  keyOrName: string,
): Promise<ClientForLogin | undefined> {
  const row = await db
    .selectFrom('api_clients')
    .select(['tenant_id', 'id', 'name', 'client_key', 'secret_hash', 'enabled', 'jwks'])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('client_key', '=', keyOrName), eb('name', '=', keyOrName)]))
    .orderBy((eb) => eb('client_key', '=', keyOrName), 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && clientForLogin(row);
}

export interface UserForLogin {
  tenantId: string;
  id: string;
  name: string;
  passwordHash: string | null;
  mayUsePassword: boolean;
}

export async function findUserForLogin(db: Kysely<DB>, tenantId: string, username: string): Promise<UserForLogin | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['tenant_id', 'id', 'username', 'first_name', 'last_name', 'password_hash', 'password_access', 'enabled'])
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    tenantId: row.tenant_id,
    id: row.id,
    name: [row.first_name, row.last_name].filter(Boolean).join(' ') || row.username,
    passwordHash: row.password_hash,
    mayUsePassword: row.password_access && row.enabled,
  };
}
