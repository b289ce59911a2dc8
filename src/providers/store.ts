import type { Kysely } from 'kysely';
import type { DB, Row } from '../db/schema.ts';
import { ProviderError } from './channels.ts';
import type { Sealer } from './sealed.ts';
import type { ProviderScope, StoredConfig } from './slot.ts';

/** Provider configurations' SQL: a tenant's, or one instance's (keyed by the nil uuid for the tenant's own). */

export const TENANT_WIDE = '00000000-0000-0000-0000-000000000000';

export type ProviderSettingsRow = Row<'provider_settings'>;

/** The instance's configuration of a channel, else its tenant's, credentials opened; one statement. */
export async function loadProviderConfig(
  db: Kysely<DB>,
  sealer: Sealer,
  channel: string,
  scope: ProviderScope,
): Promise<StoredConfig | undefined> {
  const row = await db
    .selectFrom('provider_settings')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('channel', '=', channel)
    .where('instance_id', 'in', [scope.instanceId, TENANT_WIDE])
    // The instance's own first.
    .orderBy((eb) => eb('instance_id', '=', TENANT_WIDE))
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  const secrets = row.sealed === null ? {} : sealer.open(row.sealed);
  if (secrets === null) {
    // The server's signing secret changed since the credentials were set: a send cannot go until they are set again.
    throw new ProviderError('PROVIDER_CREDENTIALS_UNREADABLE', `The ${channel} credentials must be set again`, false);
  }
  return {
    driver: row.driver,
    options: { ...row.options, ...secrets },
    level: row.instance_id === TENANT_WIDE ? 'tenant' : 'instance',
    version: `${row.driver}@${new Date(row.updated_at).toISOString()}`,
  };
}
