import { type Kysely, type SqlBool, sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { DB, Row } from '../../db/schema.ts';
import { likeContains } from '../../db/sql.ts';
import { applySort, offsetOf, type Paging, type SortKey } from '../../http/pagination.ts';
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
): Promise<{ rows: UserRow[]; total: number }> {
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
  if (filter.roleName) {
    const roleName = filter.roleName;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('access_grants as g')
          .select(eb.lit(1).as('one'))
          .whereRef('g.tenant_id', '=', 'u.tenant_id')
          .whereRef('g.principal_id', '=', 'u.id')
          .where('g.grant_type', '=', 'SECURITY_ROLE')
          .where('g.name', '=', roleName),
      ),
    );
  }
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
          .whereRef('ut.tenant_id', '=', 'u.tenant_id')
          .whereRef('ut.user_id', '=', 'u.id')
          .where(sql<SqlBool>`ut.territories @> ANY(${sql.val(patterns)}::jsonb[])`),
      ),
    );
  }
  const [rows, count] = await Promise.all([
    applySort(query.selectAll('u'), sort, [{ column: 'lower(u.username)', direction: 'asc' }], 'u.id')
      .limit(paging.size)
      .offset(offsetOf(paging))
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export interface UserGrantRow {
  principal_id: string;
  grant_type: 'SECURITY_ROLE' | 'SECURITY_POLICY';
  name: string;
  primary_role: boolean;
  effective_date: Date | null;
  expiration_date: Date | null;
  created_at: Date;
  updated_at: Date;
  instance_id: string;
  instance_name: string;
  instance_description: string | null;
}

export async function grantsOfUsers(db: Kysely<DB>, tenantId: string, userIds: string[]): Promise<UserGrantRow[]> {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('access_grants as g')
    .innerJoin('instances as i', (join) => join.onRef('i.tenant_id', '=', 'g.tenant_id').onRef('i.id', '=', 'g.instance_id'))
    .select([
      'g.principal_id',
      'g.grant_type',
      'g.name',
      'g.primary_role',
      'g.effective_date',
      'g.expiration_date',
      'g.created_at',
      'g.updated_at',
      'i.id as instance_id',
      'i.name as instance_name',
      'i.description as instance_description',
    ])
    .where('g.tenant_id', '=', tenantId)
    .where('g.principal_id', 'in', userIds)
    .orderBy('i.name')
    .orderBy('g.name')
    .execute();
}

export async function territoriesOfUsers(db: Kysely<DB>, tenantId: string, userIds: string[]) {
  if (userIds.length === 0) return [];
  return db
    .selectFrom('user_territories')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('user_id', 'in', userIds)
    .execute();
}

export async function writeTerritories(
  trx: Kysely<DB>,
  tenantId: string,
  userId: string,
  territories: UserTerritoryEntry[],
  fullAccessInstances: string[] | null,
  actorId: string | null,
) {
  const now = new Date();
  return trx
    .insertInto('user_territories')
    .values({
      tenant_id: tenantId,
      user_id: userId,
      id: uuidv7(),
      territories: JSON.stringify(territories),
      full_territories_access_instances: fullAccessInstances,
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
}
