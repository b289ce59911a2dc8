import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface ClientForLogin {
  tenantId: string;
  id: string;
  name: string;
  secretHash: string;
  enabled: boolean;
}

/** A client by its key, which is unique across the server (DECISIONS §4). */
export async function findClientByKey(db: Kysely<DB>, clientKey: string): Promise<ClientForLogin | undefined> {
  const row = await db
    .selectFrom('api_client_keys as k')
    .innerJoin('api_clients as c', (join) => join.onRef('c.tenant_id', '=', 'k.tenant_id').onRef('c.id', '=', 'k.client_id'))
    .select(['c.tenant_id', 'c.id', 'c.name', 'c.secret_hash', 'c.enabled'])
    .where('k.client_key', '=', clientKey)
    .executeTakeFirst();
  return row && { tenantId: row.tenant_id, id: row.id, name: row.name, secretHash: row.secret_hash, enabled: row.enabled };
}

/**
 * The client a production token path names: `{clientName}` is the client's key in production
 * (DECISIONS §4), and Cairn's own name for it is accepted too. A key wins over a name.
 */
export async function findClientInTenant(
  db: Kysely<DB>,
  tenantName: string,
  keyOrName: string,
): Promise<ClientForLogin | undefined> {
  const row = await db
    .selectFrom('tenants as t')
    .innerJoin('api_clients as c', 'c.tenant_id', 't.id')
    .select(['c.tenant_id', 'c.id', 'c.name', 'c.secret_hash', 'c.enabled'])
    .where('t.name', '=', tenantName)
    .where((eb) => eb.or([eb('c.client_key', '=', keyOrName), eb('c.name', '=', keyOrName)]))
    .orderBy((eb) => eb('c.client_key', '=', keyOrName), 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && { tenantId: row.tenant_id, id: row.id, name: row.name, secretHash: row.secret_hash, enabled: row.enabled };
}

export interface UserForLogin {
  tenantId: string;
  id: string;
  name: string;
  passwordHash: string | null;
  mayUsePassword: boolean;
}

export async function findUserForLogin(db: Kysely<DB>, tenantName: string, username: string): Promise<UserForLogin | undefined> {
  const row = await db
    .selectFrom('tenants as t')
    .innerJoin('users as u', 'u.tenant_id', 't.id')
    .select([
      'u.tenant_id',
      'u.id',
      'u.username',
      'u.first_name',
      'u.last_name',
      'u.password_hash',
      'u.password_access',
      'u.enabled',
    ])
    .where('t.name', '=', tenantName)
    .where((eb) => eb(eb.fn('lower', ['u.username']), '=', username.toLowerCase()))
    .where('u.deleted_at', 'is', null)
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
