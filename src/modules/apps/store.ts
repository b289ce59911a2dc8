import { type Kysely, sql } from 'kysely';
import { crossTenant } from '../../db/cross-tenant.ts';
import type { DB, NewRow, Row } from '../../db/schema.ts';
import type {} from './tables.ts';

/** The apps a tenant registered (smart_apps), each read in its tenant: one shard. */

export type AppRow = Row<'smart_apps'>;

export const readApp = (db: Kysely<DB>, tenantId: string, id: string) =>
  db.selectFrom('smart_apps').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();

export const readAppByClientId = (db: Kysely<DB>, tenantId: string, clientId: string) =>
  db.selectFrom('smart_apps').selectAll().where('tenant_id', '=', tenantId).where('client_id', '=', clientId).executeTakeFirst();

/** A tenant's apps by name; a tenant registers a handful, so a page is all of them up to the bound. */
export const listApps = (db: Kysely<DB>, tenantId: string, limit: number) =>
  db.selectFrom('smart_apps').selectAll().where('tenant_id', '=', tenantId).orderBy('name').limit(limit).execute();

export async function insertApp(db: Kysely<DB>, row: NewRow<'smart_apps'>): Promise<void> {
  await db.insertInto('smart_apps').values(row).execute();
}

export async function updateApp(
  db: Kysely<DB>,
  tenantId: string,
  id: string,
  changes: Partial<NewRow<'smart_apps'>>,
): Promise<void> {
  await db.updateTable('smart_apps').set(changes).where('tenant_id', '=', tenantId).where('id', '=', id).execute();
}

/** The app and every record its authorization servers made for it (sessions' grants, codes, tokens). */
export async function deleteApp(db: Kysely<DB>, tenantId: string, app: AppRow): Promise<void> {
  await db.deleteFrom('oauth_records').where('tenant_id', '=', tenantId).where('client_id', '=', app.client_id).execute();
  await db.deleteFrom('smart_apps').where('tenant_id', '=', tenantId).where('id', '=', app.id).execute();
}

export const nameTaken = async (db: Kysely<DB>, tenantId: string, name: string, exceptId?: string) =>
  (await db
    .selectFrom('smart_apps')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId as string))
    .executeTakeFirst()) !== undefined;

export interface AppAccessToken {
  userId: string;
  userName: string;
  scope: string;
  /** The instance whose authorization server issued it. */
  instanceId: string;
  clientId: string;
  /** The app it was issued to; none for the console's (oauth/console.ts). */
  app: { id: string; name: string } | null;
  /** The patient its grant was launched with or the user picked (launch.ts), if any. */
  patient: string | null;
}

/**
 * An opaque access token presented to the API, in one statement: good while unexpired, issued by
 * one of the tenant's authorization servers, to an app still registered and enabled or to the
 * console; with the patient in its grant's context (kept under the grant id, launch.ts).
 */
export async function findAccessToken(
  db: Kysely<DB>,
  tenantId: string,
  token: string,
  now: Date,
  consoleClientId: string,
): Promise<AppAccessToken | undefined> {
  const row = await db
    .selectFrom('oauth_records as r')
    .leftJoin('smart_apps as a', (join) => join.on('a.tenant_id', '=', tenantId).onRef('a.client_id', '=', 'r.client_id'))
    .innerJoin('users as u', (join) =>
      join.on('u.tenant_id', '=', tenantId).on('u.id', '=', sql<string>`(r.payload->>'accountId')::uuid`),
    )
    .leftJoin('oauth_records as c', (join) =>
      join
        .on('c.tenant_id', '=', tenantId)
        .on('c.model', '=', 'LaunchContext')
        .on('c.id', '=', sql<string>`r.payload->>'grantId'`),
    )
    .select([
      'u.id as user_id',
      'u.username',
      'u.first_name',
      'u.last_name',
      sql<string>`coalesce(r.payload->>'scope', '')`.as('scope'),
      'r.instance_id',
      'r.client_id',
      'a.id as app_id',
      'a.name',
      sql<string | null>`c.payload->>'patient'`.as('patient'),
    ])
    .where('r.tenant_id', '=', tenantId)
    .where('r.model', '=', 'AccessToken')
    .where('r.id', '=', token)
    .where('r.expires_at', '>', now)
    .where((eb) => eb.or([eb('a.enabled', '=', true), eb('r.client_id', '=', consoleClientId)]))
    .executeTakeFirst();
  if (!row?.client_id) return undefined;
  const userName = [row.first_name, row.last_name].filter(Boolean).join(' ') || row.username;
  return {
    userId: row.user_id,
    userName,
    scope: row.scope,
    instanceId: row.instance_id,
    clientId: row.client_id,
    app: row.app_id && row.name ? { id: row.app_id, name: row.name } : null,
    patient: row.patient,
  };
}

/** Records of the authorization servers past their expiry (codes, tokens, sessions, interactions): every tenant's at once. */
export async function removeExpiredRecords(db: Kysely<DB>, now: Date): Promise<number> {
  const result = await sql`${sql.raw(crossTenant('oauth-expiry'))}
    DELETE FROM oauth_records WHERE expires_at <= ${now}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
