import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** The ids among `userIds` that are not live users of the tenant (001: every care-team member is a valid user). */
export async function missingUserIds(db: Kysely<DB>, tenantId: string, userIds: string[]): Promise<string[]> {
  if (userIds.length === 0) return [];
  const found = await db
    .selectFrom('users')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', userIds)
    .where('deleted_at', 'is', null)
    .execute();
  const present = new Set(found.map((row) => row.id));
  return [...new Set(userIds)].filter((id) => !present.has(id));
}
