import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { DB, NewRow } from '../db/schema.ts';

/**
 * The access log's records (DECISIONS "Access log"): who was shown which patients' data. Answers
 * to requests write theirs through http/access-log.ts; the other ways data leaves Cairn (a signed
 * file link used, a webhook delivery) write theirs here too. Only ids and metadata, never values.
 */

/** Who was shown the data. */
export interface AccessActor {
  /**
   * API_CLIENT or USER (a token's caller); LINK (whoever held a signed file link: `id` and
   * `onBehalfOf` name its issuer); WEBHOOK (a subscription's receiver: `id` is the subscription);
   * SYSTEM (the log's own upkeep).
   */
  type: 'API_CLIENT' | 'USER' | 'LINK' | 'WEBHOOK' | 'SYSTEM';
  id: string | null;
  name: string | null;
  /** Whose credential the actor used when not its own: a link's issuer, `USER:<id>`. */
  onBehalfOf: string | null;
}

export interface AccessEntry {
  tenantId: string;
  instanceId: string | null;
  actor: AccessActor;
  at: Date;
  clientAddress: string | null;
  requestId: string | null;
  /** The route (`GET /:tenantName/...`), or the work (`webhooks.deliver`). */
  operation: string;
  resourceType: string;
  patientIds: readonly string[];
  recordIds: readonly string[];
  /** The HTTP status answered: 2xx shown, 403 and 404 attempts; 0 for data sent, not asked for (a webhook). */
  outcome: number;
}

/** At most this many record ids are kept on a record: a page names its patients, not every row. */
const MAX_RECORD_IDS = 20;

/** One statement: the record and a row per patient (for "who saw patient P"). */
export async function writeAccess(db: Kysely<DB>, entry: AccessEntry): Promise<void> {
  const patientIds = [...new Set(entry.patientIds)];
  const recordIds = [...new Set(entry.recordIds)].slice(0, MAX_RECORD_IDS);
  const row: NewRow<'access_log'> = {
    tenant_id: entry.tenantId,
    id: uuidv7(),
    occurred_at: entry.at,
    instance_id: entry.instanceId,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    actor_name: entry.actor.name,
    on_behalf_of: entry.actor.onBehalfOf,
    client_address: entry.clientAddress,
    request_id: entry.requestId,
    operation: entry.operation,
    resource_type: entry.resourceType,
    patient_ids: patientIds,
    record_ids: recordIds.length > 0 ? recordIds : null,
    outcome: entry.outcome,
  };
  const logged = db.insertInto('access_log').values(row);
  if (patientIds.length === 0) {
    await logged.execute();
    return;
  }
  await db
    .with('logged', () => logged)
    .insertInto('access_log_patients')
    .values(
      patientIds.map((patientId) => ({
        tenant_id: row.tenant_id,
        patient_id: patientId,
        occurred_at: entry.at,
        access_id: row.id,
      })),
    )
    .execute();
}
