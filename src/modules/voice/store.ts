import type { Kysely } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { filteredPage, type Paging } from '../../http/pagination.ts';
import { readInstant } from '../../wire/schemas.ts';
import type { UnrecognizedFilters } from './schemas.ts';

/** Voice calls' SQL: every query names the tenant and the instance. */

export type CallRow = Row<'voice_calls'>;

export function findCall(db: Kysely<DB>, scope: Scope, id: string) {
  return db
    .selectFrom('voice_calls')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}

export function findCallByExternalId(db: Kysely<DB>, scope: Scope, externalId: string) {
  return db
    .selectFrom('voice_calls')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('external_id', '=', externalId)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}

/** A page of the instance's unrecognized calls (or all its calls), newest first, and the total; one statement. */
export function listCalls(
  db: Kysely<DB>,
  scope: Scope,
  filters: UnrecognizedFilters,
  paging: Paging,
): Promise<{ rows: CallRow[]; total: number }> {
  let base = db
    .selectFrom('voice_calls as c')
    .where('c.tenant_id', '=', scope.tenantId)
    .where('c.instance_id', '=', scope.instanceId);
  if (filters.unrecognised !== false) base = base.where('c.unrecognized', '=', true);
  if (filters.assigned !== undefined) base = base.where('c.patient_id', filters.assigned ? 'is not' : 'is', null);
  if (filters.date) base = base.where('c.date', '>=', readInstant(filters.date));
  const list = { base: base as never, table: 'voice_calls', alias: 'c', tenantId: scope.tenantId, searched: false };
  const order = { keys: [], fallback: [{ column: 'c.date', direction: 'desc' as const }], tieBreaker: 'c.id' };
  return filteredPage<CallRow>(db as Kysely<never>, list, order, paging);
}
