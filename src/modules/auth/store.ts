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
  username: string;
  name: string;
  passwordHash: string | null;
  mayUsePassword: boolean;
  /** Whether the user has a confirmed second factor (mfa.ts): a sign-in then needs a code too. */
  secondFactor: boolean;
  /** Whether the tenant's policy requires one (policy.ts): a user without one must add it first. */
  mfaRequired: boolean;
}

export async function findUserForLogin(db: Kysely<DB>, tenantId: string, username: string): Promise<UserForLogin | undefined> {
  const row = await db
    .selectFrom('users')
    .select(['tenant_id', 'id', 'username', 'first_name', 'last_name', 'password_hash', 'password_access', 'enabled'])
    // In the same statement, the factor and the tenant's policy: a sign-in stays one round trip.
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('user_mfa')
            .select('user_id')
            .where('user_mfa.tenant_id', '=', tenantId)
            .whereRef('user_mfa.user_id', '=', 'users.id')
            .where('user_mfa.confirmed_at', 'is not', null),
        )
        .as('second_factor'),
    )
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('sign_in_policies')
            .select('tenant_id')
            .where('sign_in_policies.tenant_id', '=', tenantId)
            .where('sign_in_policies.mfa_required', '=', true),
        )
        .as('mfa_required'),
    )
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    tenantId: row.tenant_id,
    id: row.id,
    username: row.username,
    name: [row.first_name, row.last_name].filter(Boolean).join(' ') || row.username,
    passwordHash: row.password_hash,
    mayUsePassword: row.password_access && row.enabled,
    secondFactor: Boolean(row.second_factor),
    mfaRequired: Boolean(row.mfa_required),
  };
}

// --- A user's second factor (mfa.ts). Every statement names its tenant as a parameter (one shard on Citus).

/** Whose factor: a user of a tenant. */
export interface FactorOwner {
  tenantId: string;
  userId: string;
}

export interface StoredFactor {
  totpSealed: string;
  confirmedAt: Date | null;
  lastStep: number | null;
}

export async function readFactor(
  db: Kysely<DB>,
  owner: FactorOwner,
  { forUpdate = false } = {},
): Promise<StoredFactor | undefined> {
  let query = db
    .selectFrom('user_mfa')
    .select(['totp_sealed', 'confirmed_at', 'last_step'])
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId);
  if (forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { totpSealed: row.totp_sealed, confirmedAt: row.confirmed_at, lastStep: row.last_step };
}

/**
 * Keeps a new, unconfirmed secret in place of any unconfirmed one, in one statement; false (nothing
 * written) when the user's factor is confirmed already, so two starts cannot replace a confirmed one.
 */
export async function saveUnconfirmedFactor(db: Kysely<DB>, owner: FactorOwner, totpSealed: string): Promise<boolean> {
  const row = await db
    .insertInto('user_mfa')
    .values({ tenant_id: owner.tenantId, user_id: owner.userId, totp_sealed: totpSealed, confirmed_at: null, last_step: null })
    .onConflict((conflict) =>
      conflict
        .columns(['tenant_id', 'user_id'])
        .doUpdateSet({ totp_sealed: totpSealed, last_step: null })
        .where('user_mfa.confirmed_at', 'is', null),
    )
    .returning('user_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** Confirms the factor, taking the confirming code's step so that code does not sign in too. */
export async function confirmFactor(db: Kysely<DB>, owner: FactorOwner, step: number, at: Date): Promise<void> {
  await db
    .updateTable('user_mfa')
    .set({ confirmed_at: at, last_step: step })
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .execute();
}

/**
 * Takes a code's time step, in one conditional statement: only a step later than the last one taken
 * is, so a code works once even when two nodes check it at the same moment.
 */
export async function takeStep(db: Kysely<DB>, owner: FactorOwner, step: number): Promise<boolean> {
  const result = await db
    .updateTable('user_mfa')
    .set({ last_step: step })
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .where('confirmed_at', 'is not', null)
    .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Uses a recovery code, in one conditional statement: the first use takes it. */
export async function useRecoveryCode(db: Kysely<DB>, owner: FactorOwner, codeHash: string, at: Date): Promise<boolean> {
  const result = await db
    .updateTable('user_recovery_codes')
    .set({ used_at: at })
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The user's recovery codes, replaced by these (hashes). */
export async function replaceRecoveryCodes(db: Kysely<DB>, owner: FactorOwner, codeHashes: string[]): Promise<void> {
  await db
    .deleteFrom('user_recovery_codes')
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .execute();
  await db
    .insertInto('user_recovery_codes')
    .values(codeHashes.map((code_hash) => ({ tenant_id: owner.tenantId, user_id: owner.userId, code_hash, used_at: null })))
    .execute();
}

/** Removes the factor (confirmed or not) and the recovery codes; false when there was no factor. */
export async function deleteFactor(db: Kysely<DB>, owner: FactorOwner): Promise<boolean> {
  await db
    .deleteFrom('user_recovery_codes')
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .execute();
  const result = await db
    .deleteFrom('user_mfa')
    .where('tenant_id', '=', owner.tenantId)
    .where('user_id', '=', owner.userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
