import type { Kysely } from 'kysely';
import type { Account } from 'oidc-provider';
import type { DB } from '../../../db/schema.ts';

/**
 * The people an authorization server signs in are the tenant's users: `sub` is the user's id, and
 * SMART's `fhirUser` the user as the FHIR API serves them (a Practitioner). A user deleted or
 * disabled since is no account: their sessions and refreshes end.
 */
export async function findAccount(db: Kysely<DB>, tenantId: string, fhirBase: string, sub: string): Promise<Account | undefined> {
  const user = await db
    .selectFrom('users')
    .select(['id', 'first_name', 'last_name', 'username'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', sub)
    .where('enabled', '=', true)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!user) return undefined;
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ') || user.username;
  return {
    accountId: user.id,
    claims: () => ({ sub: user.id, fhirUser: `${fhirBase}/Practitioner/${user.id}`, name }),
  };
}
