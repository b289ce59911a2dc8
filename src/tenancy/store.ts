import { type Kysely, type SqlBool, sql } from 'kysely';
import { parameterBatches } from '../db/batches.ts';
import { uuidv7 } from '../db/ids.ts';
import type { DB, GrantType, PrincipalType } from '../db/schema.ts';
import { violationOf } from '../db/violations.ts';
import type { Writing } from '../events/work.ts';
import { hashSecret, newClientKey, newSecret } from './secrets.ts';
import {
  findInstanceByName,
  findTenantByName,
  type Instance,
  reservedInstanceNames,
  reservedTenantNames,
  type Tenant,
  tenantNamePattern,
} from './tenancy.ts';

/**
 * Tenants, instances and API clients: created by the CLI and the demo bootstrap, not over HTTP
 * (a tenant's administrators manage its API clients through modules/api-clients, audited).
 */

/** The database, and the clock every record time comes from (the app's services fit it). */
export interface Store {
  db: Kysely<DB>;
  clock: { now(): Date };
}

export class TenancyInputError extends Error {}

function checkName(kind: 'tenant' | 'instance', name: string): void {
  const reserved = kind === 'tenant' ? reservedTenantNames : reservedInstanceNames;
  if (!tenantNamePattern.test(name)) {
    throw new TenancyInputError(`A ${kind} name is 1–63 lower-case letters, digits, - or _, starting with a letter or digit`);
  }
  if (reserved.has(name)) throw new TenancyInputError(`"${name}" is reserved and cannot name a ${kind}`);
}

export async function createTenant({ db, clock }: Store, name: string, title = name): Promise<Tenant> {
  checkName('tenant', name);
  if (await findTenantByName(db, name)) throw new TenancyInputError(`Tenant "${name}" already exists`);
  return db
    .insertInto('tenants')
    .values({ id: uuidv7(), name, title, created_at: clock.now() })
    .returning(['id', 'name'])
    .executeTakeFirstOrThrow();
}

export async function createInstance(
  { db, clock }: Store,
  tenant: Tenant,
  name: string,
  description: string | null = null,
): Promise<Instance> {
  checkName('instance', name);
  if (await findInstanceByName(db, tenant.id, name)) {
    throw new TenancyInputError(`Instance "${name}" already exists in ${tenant.name}`);
  }
  await db
    .insertInto('instances')
    .values({ tenant_id: tenant.id, id: uuidv7(), name, description, created_at: clock.now() })
    .execute();
  const instance = await findInstanceByName(db, tenant.id, name);
  if (!instance) throw new Error('instance vanished after insert');
  return instance;
}

export interface GrantInput {
  instanceId: string;
  type: GrantType;
  name: string;
  primaryRole?: boolean;
  effectiveDate?: Date | null;
  expirationDate?: Date | null;
}

/**
 * Replaces the roles and/or policies a caller holds (the kinds in `types`); callers clear the
 * access cache afterwards.
 */
export async function replaceGrants(
  w: Pick<Writing, 'db' | 'now'>,
  tenantId: string,
  principal: { type: PrincipalType; id: string },
  grants: GrantInput[],
  types: GrantType[] = ['SECURITY_ROLE', 'SECURITY_POLICY'],
): Promise<void> {
  const trx = w.db;
  await trx
    .deleteFrom('access_grants')
    .where('tenant_id', '=', tenantId)
    .where('principal_id', '=', principal.id)
    .where('grant_type', 'in', types)
    .execute();
  const rows = grants.map((grant) => ({
    tenant_id: tenantId,
    principal_id: principal.id,
    principal_type: principal.type,
    instance_id: grant.instanceId,
    grant_type: grant.type,
    name: grant.name,
    primary_role: grant.primaryRole ?? false,
    effective_date: grant.effectiveDate ?? null,
    expiration_date: grant.expirationDate ?? null,
    created_at: w.now,
    updated_at: w.now,
  }));
  for (const batch of parameterBatches(rows)) {
    await trx
      .insertInto('access_grants')
      .values(batch)
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
}

export interface CreatedClient {
  id: string;
  name: string;
  clientKey: string;
  /** Shown once; only its hash is stored (000 auth rule 4). */
  secret: string;
}

/** Creates an API client holding the given roles. The key is unique across the whole server. */
export async function createApiClient(
  { db, clock }: Store,
  tenant: Tenant,
  input: { name: string; roles: { instanceId: string; role: string }[]; clientKey?: string; secret?: string },
): Promise<CreatedClient> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(input.name)) {
    throw new TenancyInputError('A client name is 1–100 letters, digits, ., - or _');
  }
  const clientKey = input.clientKey || newClientKey();
  const secret = input.secret || newSecret();
  if (secret.length < 16) throw new TenancyInputError('A client secret needs at least 16 characters');
  const id = uuidv7();
  const secretHash = await hashSecret(secret);
  const now = clock.now();
  const grants = input.roles.map((role) => ({
    tenant_id: tenant.id,
    principal_id: id,
    principal_type: 'API_CLIENT' as const,
    instance_id: role.instanceId,
    grant_type: 'SECURITY_ROLE' as const,
    name: role.role,
    primary_role: true,
    created_at: now,
    updated_at: now,
  }));
  // One statement, so all or nothing without a transaction: the client, its server-wide key,
  // and its roles. A key or name already taken is a unique violation, told apart by constraint.
  try {
    await sql`
      WITH client AS (${db.insertInto('api_clients').values({
        tenant_id: tenant.id,
        id,
        name: input.name,
        client_key: clientKey,
        secret_hash: secretHash,
        created_at: now,
        updated_at: now,
      })}),
      ${
        grants.length > 0
          ? sql`roles AS (${db
              .insertInto('access_grants')
              .values(grants)
              .onConflict((conflict) => conflict.doNothing())}),`
          : sql``
      }
      key AS (${db.insertInto('api_client_keys').values({ client_key: clientKey, tenant_id: tenant.id, client_id: id })})
      SELECT 1`.execute(db);
  } catch (error) {
    const violation = violationOf(error);
    const constraint = violation?.code === '23505' && violation.constraint;
    if (constraint === 'api_client_keys_pkey' || constraint === 'api_clients_tenant_id_client_key_key') {
      throw new TenancyInputError('That client key is already in use');
    }
    if (constraint === 'api_clients_tenant_id_name_key')
      throw new TenancyInputError(`Client "${input.name}" already exists in ${tenant.name}`);
    throw error;
  }
  return { id, name: input.name, clientKey, secret };
}

/**
 * A filter for a list of principals (users `u`, API clients `c`): those holding the security role
 * `roleName` in any instance.
 */
export function holdsRole(alias: 'u' | 'c', tenantId: string, roleName: string) {
  return sql<SqlBool>`EXISTS (SELECT 1 FROM access_grants g
    WHERE g.tenant_id = ${tenantId} AND g.principal_id = ${sql.ref(`${alias}.id`)}
      AND g.grant_type = 'SECURITY_ROLE' AND g.name = ${roleName})`;
}
