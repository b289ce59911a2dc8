import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import { uuidv7 } from '../../db/ids.ts';
import type { DB, Row } from '../../db/schema.ts';
import { likeContains, PREPARED } from '../../db/sql.ts';
import type { Writing } from '../../events/work.ts';
import { filteredPage, type Paging, type SortKey } from '../../http/pagination.ts';
import { holdsRole } from '../../tenancy/store.ts';
import { uuidPattern } from '../../wire/schemas.ts';
import type { UserFilter } from './schemas.ts';
import type { UserTerritoryEntry } from './tables.ts';

export type UserRow = Row<'users'>;
export type UserLookup = 'USERNAME' | 'ID' | 'EMAIL';

/** Sort keys: API name → SQL, each matching an index of migration 0001. */
export const sortableUserFields: Record<string, string> = {
  username: 'lower(u.username)',
  email: 'lower(u.email)',
  firstName: 'lower(u.first_name)',
  lastName: 'lower(u.last_name)',
  createdAt: 'u.created_at',
  updatedAt: 'u.updated_at',
  userState: 'u.user_state',
};

export async function findUser(
  db: Kysely<DB>,
  tenantId: string,
  key: string,
  lookup: UserLookup,
  options: { forUpdate?: boolean } = {},
): Promise<UserRow | undefined> {
  if (lookup === 'ID' && !uuidPattern.test(key)) return undefined;
  let query = db.selectFrom('users').selectAll().where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
  if (lookup === 'ID') query = query.where('id', '=', key);
  else query = query.where((eb) => eb(eb.fn('lower', [lookup === 'EMAIL' ? 'email' : 'username']), '=', key.toLowerCase()));
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

export async function listUsers(
  db: Kysely<DB>,
  tenantId: string,
  filter: UserFilter,
  paging: Paging,
  sort: SortKey[],
): Promise<{ rows: UserReadRow[]; total: number }> {
  let query = db.selectFrom('users as u').where('u.tenant_id', '=', tenantId);
  if (!filter.includeDeleted) query = query.where('u.deleted_at', 'is', null);
  if (filter.email) query = query.where((eb) => eb(eb.fn('lower', ['u.email']), '=', filter.email!.toLowerCase()));
  if (filter.firstName) query = query.where((eb) => eb(eb.fn('lower', ['u.first_name']), '=', filter.firstName!.toLowerCase()));
  if (filter.lastName) query = query.where((eb) => eb(eb.fn('lower', ['u.last_name']), '=', filter.lastName!.toLowerCase()));
  if (filter.ids && filter.ids.length > 0) query = query.where('u.id', 'in', filter.ids);
  if (filter.userState) query = query.where('u.user_state', '=', filter.userState);
  if (filter.seatAssigned !== undefined) {
    query = query.where(sql<SqlBool>`cardinality(u.seats) ${sql.raw(filter.seatAssigned ? '>' : '=')} 0`);
  }
  if (filter.search?.trim()) {
    const pattern = likeContains(filter.search.trim().toLowerCase());
    query = query.where(
      sql<SqlBool>`lower(u.username || ' ' || u.email || ' ' || coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')) LIKE ${pattern}`,
    );
  }
  if (filter.roleName) query = query.where(holdsRole('u', tenantId, filter.roleName));
  if (filter.region) {
    // Users with an entry for the region; with `territories`, one that covers any of them.
    const patterns = (filter.territories?.length ? filter.territories : [undefined]).map((territory) =>
      JSON.stringify([territory ? { name: filter.region, territories: [territory] } : { name: filter.region }]),
    );
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('user_territories as ut')
          .select(eb.lit(1).as('one'))
          .where('ut.tenant_id', '=', tenantId)
          .whereRef('ut.user_id', '=', 'u.id')
          .where(sql<SqlBool>`ut.territories @> ANY(${sql.val(patterns)}::jsonb[])`),
      ),
    );
  }
  const list = { base: query as never, table: 'users', alias: 'u', tenantId, searched: false, extra: userRelations(tenantId) };
  const order = { keys: sort, fallback: [{ column: 'lower(u.username)', direction: 'asc' as const }], tieBreaker: 'u.id' };
  return filteredPage<UserReadRow>(db as Kysely<never>, list, order, paging);
}

/** A grant as JSON: its times are text (the view turns them back into Dates). */
export interface UserGrantJson {
  grant_type: 'SECURITY_ROLE' | 'SECURITY_POLICY';
  name: string;
  primary_role: boolean;
  effective_date: string | null;
  expiration_date: string | null;
  created_at: string;
  updated_at: string;
  instance_id: string;
  instance_name: string;
  instance_description: string | null;
}

export type UserReadRow = UserRow & {
  grants: UserGrantJson[];
  territory_record: { territories: UserTerritoryEntry[]; full_territories_access_instances: string[] | null } | null;
};

/**
 * A user as every read loads it: the row with its grants and territories composed into the same
 * statement as JSON columns (one round trip, as for patients). Each table names the tenant as a
 * parameter (a sub-query joined only on tenant columns is refused or sent to every shard on Citus).
 */
export function userRelations(tenantId: string, alias = 'u'): RawBuilder<unknown>[] {
  const u = sql.raw(alias);
  return [
    sql`(SELECT coalesce(json_agg(json_build_object(
        'grant_type', g.grant_type, 'name', g.name, 'primary_role', g.primary_role,
        'effective_date', g.effective_date, 'expiration_date', g.expiration_date,
        'created_at', g.created_at, 'updated_at', g.updated_at,
        'instance_id', i.id, 'instance_name', i.name, 'instance_description', i.description
      ) ORDER BY i.name, g.name), '[]')
      FROM access_grants g JOIN instances i ON i.tenant_id = ${tenantId} AND i.id = g.instance_id
      WHERE g.tenant_id = ${tenantId} AND g.principal_id = ${u}.id) AS grants`,
    sql`(SELECT json_build_object('territories', ut.territories, 'full_territories_access_instances', ut.full_territories_access_instances)
      FROM user_territories ut WHERE ut.tenant_id = ${tenantId} AND ut.user_id = ${u}.id) AS territory_record`,
  ];
}

/** One live user with its relations, by id, username or email: one statement. */
export async function readUser(
  db: Kysely<DB>,
  tenantId: string,
  key: string,
  lookup: UserLookup,
): Promise<UserReadRow | undefined> {
  if (lookup === 'ID' && !uuidPattern.test(key)) return undefined;
  const match =
    lookup === 'ID'
      ? sql`u.id = ${key}`
      : sql`lower(u.${sql.raw(lookup === 'EMAIL' ? 'email' : 'username')}) = ${key.toLowerCase()}`;
  const { rows } = await sql<UserReadRow>`${sql.raw(PREPARED)}
    SELECT u.*, ${sql.join(userRelations(tenantId))} FROM users u
    WHERE u.tenant_id = ${tenantId} AND u.deleted_at IS NULL AND ${match}`.execute(db);
  return rows[0];
}

export async function writeTerritories(
  w: Writing,
  tenantId: string,
  userId: string,
  territories: UserTerritoryEntry[],
  fullAccessInstances: string[] | null,
) {
  const { db: trx, now } = w;
  const actorId = w.actor.id;
  const record = await trx
    .insertInto('user_territories')
    .values({
      tenant_id: tenantId,
      user_id: userId,
      id: uuidv7(),
      territories: JSON.stringify(territories),
      full_territories_access_instances: fullAccessInstances,
      created_at: now,
      updated_at: now,
      created_by: actorId,
      updated_by: actorId,
    })
    .onConflict((conflict) =>
      conflict.columns(['tenant_id', 'user_id']).doUpdateSet({
        territories: JSON.stringify(territories),
        full_territories_access_instances: fullAccessInstances,
        updated_at: now,
        updated_by: actorId,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  // The region index follows the record, in the same transaction.
  await trx.deleteFrom('user_regions').where('tenant_id', '=', tenantId).where('user_id', '=', userId).execute();
  const regions = new Map(territories.map((entry) => [`${entry.instanceName}\u0000${entry.name}`, entry]));
  if (regions.size > 0) {
    await trx
      .insertInto('user_regions')
      .values(
        [...regions.values()].map((entry) => ({
          tenant_id: tenantId,
          instance_name: entry.instanceName,
          region: entry.name,
          user_id: userId,
        })),
      )
      .execute();
  }
  return record;
}

/** Live users among `ids` with their relations, in one statement (other areas show them: an encounter's host). */
export async function readUsers(db: Kysely<DB>, tenantId: string, ids: string[]): Promise<UserReadRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<UserReadRow>`
    SELECT u.*, ${sql.join(userRelations(tenantId))} FROM users u
    WHERE u.tenant_id = ${tenantId} AND u.deleted_at IS NULL AND u.id = ANY(${ids}::uuid[])`.execute(db);
  return rows;
}
