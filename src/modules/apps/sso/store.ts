import type { Kysely } from 'kysely';
import type { DB, NewRow, Row } from '../../../db/schema.ts';
import type {} from '../tables.ts';

/** Single sign-on's SQL: a tenant's identity providers, and which person at one is which user. One shard each. */

export type IdentityProviderRow = Row<'identity_providers'>;

export const readProvider = (db: Kysely<DB>, tenantId: string, id: string) =>
  db.selectFrom('identity_providers').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

/** A tenant's providers by name; a tenant has a handful, so a page is all of them up to the bound. */
export const listProviders = (db: Kysely<DB>, tenantId: string, limit: number) =>
  db.selectFrom('identity_providers').selectAll().where('tenant_id', '=', tenantId).orderBy('name').limit(limit).execute();

/** What the sign-in page offers: the enabled providers' buttons. */
export const enabledProviders = (db: Kysely<DB>, tenantId: string, limit: number) =>
  db
    .selectFrom('identity_providers')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('enabled', '=', true)
    .orderBy('name')
    .limit(limit)
    .execute();

export async function insertProvider(db: Kysely<DB>, row: NewRow<'identity_providers'>): Promise<void> {
  await db.insertInto('identity_providers').values(row).execute();
}

export async function updateProvider(
  db: Kysely<DB>,
  tenantId: string,
  id: string,
  changes: Partial<NewRow<'identity_providers'>>,
): Promise<void> {
  await db.updateTable('identity_providers').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/** The provider, and with it (the foreign key's cascade) every link of its people to users. */
export async function deleteProvider(db: Kysely<DB>, tenantId: string, id: string): Promise<void> {
  await db.deleteFrom('identity_providers').where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

export const providerNameTaken = async (db: Kysely<DB>, tenantId: string, name: string, exceptId?: string) =>
  (await db
    .selectFrom('identity_providers')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId as string))
    .executeTakeFirst()) !== undefined;

/** What a sign-in needs to know of a user: whether they may sign in this way. */
export interface SsoUser {
  id: string;
  enabled: boolean;
  ssoAccess: boolean;
}

const userColumns = ['u.id', 'u.enabled', 'u.sso_access'] as const;
const toUser = (row: { id: string; enabled: boolean; sso_access: boolean }): SsoUser => ({
  id: row.id,
  enabled: row.enabled,
  ssoAccess: row.sso_access,
});

/** The user a person at a provider was linked to (never a deleted one). */
export async function linkedUser(db: Kysely<DB>, tenantId: string, providerId: string, subject: string) {
  const row = await db
    .selectFrom('user_identities as i')
    .innerJoin('users as u', (join) => join.on('u.tenant_id', '=', tenantId).onRef('u.id', '=', 'i.user_id'))
    .select(userColumns)
    .where('i.tenant_id', '=', tenantId)
    .where('i.provider_id', '=', providerId)
    .where('i.subject', '=', subject)
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
  return row && toUser(row);
}

/** The user whose email this is, compared as the users' unique index does (lower case). */
export async function userByEmail(db: Kysely<DB>, tenantId: string, email: string) {
  const row = await db
    .selectFrom('users as u')
    .select(userColumns)
    .where('u.tenant_id', '=', tenantId)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .where('u.deleted_at', 'is', null)
    .executeTakeFirst();
  return row && toUser(row);
}

/** The subjects a user is linked to at a provider. */
export async function subjectsOf(db: Kysely<DB>, tenantId: string, providerId: string, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('user_identities')
    .select('subject')
    .where('tenant_id', '=', tenantId)
    .where('user_id', '=', userId)
    .where('provider_id', '=', providerId)
    .execute();
  return rows.map((row) => row.subject);
}

/** Remembers which user a person is; a subject linked before to another user (by email) moves to this one. */
export async function linkIdentity(db: Kysely<DB>, row: NewRow<'user_identities'>): Promise<void> {
  await db
    .insertInto('user_identities')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'provider_id', 'subject']).doUpdateSet({ user_id: row.user_id }))
    .execute();
}
