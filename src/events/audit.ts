import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { parameterBatches } from '../db/batches.ts';
import type { DB } from '../db/schema.ts';

/**
 * Who makes a change, for the audit log and the created/updated-by fields. Requests act as
 * their caller; the CLI acts as SYSTEM.
 */
export interface Actor {
  tenantId: string;
  instanceId: string | null;
  type: 'API_CLIENT' | 'USER' | 'SYSTEM';
  id: string | null;
  /** Shown as createdByName/updatedByName: `API_CLIENT:<name>`, a user's full name, or `SYSTEM:cli`. */
  name: string;
  requestId: string | null;
  method: string | null;
  route: string | null;
}

type Writer = Pick<Actor, 'id' | 'name'>;

/** The stamp columns a new row of any record table gets: who created it, and when. */
export function createdStamp(actor: Writer, at: Date = new Date()) {
  return {
    created_at: at,
    updated_at: at,
    created_by: actor.id,
    created_by_name: actor.name,
    updated_by: actor.id,
    updated_by_name: actor.name,
  };
}

/** The stamp columns a change to a row sets. */
export function updatedStamp(actor: Writer, at: Date = new Date()) {
  return { updated_at: at, updated_by: actor.id, updated_by_name: actor.name };
}

export function systemActor(tenantId: string, instanceId: string | null = null): Actor {
  return {
    tenantId,
    instanceId,
    type: 'SYSTEM',
    id: null,
    name: 'SYSTEM:cli',
    requestId: null,
    method: null,
    route: null,
  };
}

export interface AuditEntry {
  /** `<ENTITY>_<CREATED|UPDATED|DELETED>` or a domain action such as `FORMATION_PUBLISHED`. */
  action: string;
  entityType: string;
  entityId: string | null;
  patientId?: string | null;
  /** Names of the fields a change touched; never their values, which may be PHI. */
  changedFields?: string[];
}

/**
 * Writes audit rows in the caller's transaction, so a change and its audit record commit or
 * roll back together.
 */
export async function recordAudit(trx: Kysely<DB>, actor: Actor, entries: AuditEntry | AuditEntry[]): Promise<void> {
  const list = Array.isArray(entries) ? entries : [entries];
  if (list.length === 0) return;
  const occurredAt = new Date();
  const rows = list.map((entry) => ({
    tenant_id: actor.tenantId,
    id: uuidv7(),
    instance_id: actor.instanceId,
    occurred_at: occurredAt,
    actor_type: actor.type,
    actor_id: actor.id,
    actor_name: actor.name,
    action: entry.action,
    entity_type: entry.entityType,
    entity_id: entry.entityId,
    patient_id: entry.patientId ?? null,
    request_id: actor.requestId,
    method: actor.method,
    route: actor.route,
    changed_fields: entry.changedFields ?? null,
  }));
  for (const batch of parameterBatches(rows)) await trx.insertInto('audit_events').values(batch).execute();
}
