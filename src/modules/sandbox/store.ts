import type { Kysely } from 'kysely';
import type { DB, Row } from '../../db/schema.ts';
import type { Scope } from '../../db/scope.ts';
import { filteredPage, type Paging } from '../../http/pagination.ts';

/** The sandbox outbox's SQL (its table is the providers mechanism's: the sandbox drivers write it). */

export type SandboxRow = Row<'sandbox_messages'>;

/** A page of what the instance's sandbox was given, newest first, and the total; one statement. */
export function listOutbox(
  db: Kysely<DB>,
  scope: Scope,
  filters: { channels: readonly string[]; status?: string | undefined },
  paging: Paging,
): Promise<{ rows: SandboxRow[]; total: number }> {
  let base = db
    .selectFrom('sandbox_messages as m')
    .where('m.tenant_id', '=', scope.tenantId)
    .where('m.instance_id', '=', scope.instanceId)
    .where('m.channel', 'in', filters.channels);
  if (filters.status) base = base.where('m.status', '=', filters.status);
  const list = { base: base as never, table: 'sandbox_messages', alias: 'm', tenantId: scope.tenantId, searched: false };
  const order = { keys: [], fallback: [{ column: 'm.created_at', direction: 'desc' as const }], tieBreaker: 'm.id' };
  return filteredPage<SandboxRow>(db as Kysely<never>, list, order, paging);
}

export function findSandboxMessage(db: Kysely<DB>, scope: Scope, id: string) {
  return db
    .selectFrom('sandbox_messages')
    .selectAll()
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .where('instance_id', '=', scope.instanceId)
    .executeTakeFirst();
}

/** Settles an ACCEPTED message; undefined when it was settled already. */
export function settleMessage(db: Kysely<DB>, scope: Scope, id: string, status: string, error: string | null, now: Date) {
  return db
    .updateTable('sandbox_messages')
    .set({ status, error, updated_at: now })
    .where('tenant_id', '=', scope.tenantId)
    .where('id', '=', id)
    .where('status', '=', 'ACCEPTED')
    .returningAll()
    .executeTakeFirst();
}
