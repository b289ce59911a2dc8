import { type Kysely, sql } from 'kysely';
import { uuidv7 } from '../db/ids.ts';
import type { DB, NewRow, Row } from '../db/schema.ts';
import type { Actor } from './audit.ts';

/**
 * The outbox (DECISIONS §9): every create, update and delete of a stored record writes an event
 * row in the same transaction as the change, through the unit of work. Events name ids and field
 * names, never values, so no PHI leaves with them. Consumers (webhooks) take the outbox's rows
 * after the commit, deleting them.
 */

/**
 * Every event subtype, a typed catalog like the audit actions: an area declares its entities and
 * their subtypes (`modules/<area>/catalog.ts`) and adds them with
 * `declare module '.../events/outbox.ts' { interface EventSubtypes extends SubtypesOf<typeof areaEvents> {} }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: areas merge their subtypes into it.
export interface EventSubtypes {}
export type EventSubtype = keyof EventSubtypes & string;

/** Entity (`TASK`) → what it is and its subtypes (`TASK_CREATED`, ..., domain ones such as `TASK_STATUS_CHANGED`). */
export type EventCatalog = Record<string, { description: string; subtypes: readonly string[] }>;
export type SubtypesOf<T extends EventCatalog> = Record<T[keyof T]['subtypes'][number] & string, true>;

const entityOfSubtype = new Map<string, string>();
const entities = new Map<string, EventCatalog[string]>();

/** Makes an area's entities and subtypes known at run time (the app merges each area's once). */
export function registerEvents(catalog: EventCatalog): void {
  for (const [entity, entry] of Object.entries(catalog)) {
    entities.set(entity, entry);
    for (const subtype of entry.subtypes) entityOfSubtype.set(subtype, entity);
  }
}

export function entityOf(subtype: string): string {
  const entity = entityOfSubtype.get(subtype);
  if (!entity) throw new Error(`event subtype ${subtype} is not declared by any area`);
  return entity;
}

export function eventCatalog(): ReadonlyMap<string, EventCatalog[string]> {
  return entities;
}

/** An event as a write emits it; the tenant, instance, actor and time come from the write. */
export interface NewEvent {
  subtype: EventSubtype;
  recordId: string | null;
  patientId?: string | null;
  /** Ids and names only (`{changedFields, cdtName, status}`): never a value that may be PHI. */
  data?: Record<string, unknown>;
}

export type EventRow = Row<'events'>;

export function eventRow(actor: Actor, event: NewEvent, at: Date): NewRow<'events'> {
  return {
    tenant_id: actor.tenantId,
    id: uuidv7(),
    instance_id: actor.instanceId,
    event_entity: entityOf(event.subtype),
    event_subtype: event.subtype,
    record_id: event.recordId,
    patient_id: event.patientId ?? null,
    actor_type: actor.type,
    actor_id: actor.id,
    request_id: actor.requestId,
    occurred_at: at,
    data: JSON.stringify(event.data ?? {}),
  };
}

/**
 * The event as integrators receive it (webhook bodies). `type` and `timestamp` are the Standard
 * Webhooks names for the subtype and the time; the rest are this API's names.
 */
export interface EventBody {
  id: string;
  type: string;
  timestamp: string;
  eventEntity: string;
  eventSubtype: string;
  tenantName: string;
  instanceName: string | null;
  patientId: string | null;
  recordId: string | null;
  actor: { type: string; id: string | null };
  /** What changed, by name and type (`changedFields`, `cdtName`, a task's `status`); not `data`,
   * which clients unwrap as a list (DECISIONS §10). */
  details: Record<string, unknown>;
}

export function eventBody(row: EventRow, names: { tenant: string; instance: string | null }): EventBody {
  const timestamp = row.occurred_at.toISOString();
  return {
    id: row.id,
    type: row.event_subtype,
    timestamp,
    eventEntity: row.event_entity,
    eventSubtype: row.event_subtype,
    tenantName: names.tenant,
    instanceName: names.instance,
    patientId: row.patient_id,
    recordId: row.record_id,
    actor: { type: row.actor_type, id: row.actor_id },
    details: row.data as Record<string, unknown>,
  };
}

/**
 * A purged patient's events not yet relayed go unsent: those about them, and those naming their id
 * in their data (a fax's). Integrators have the events already relayed; the purge's own audit row says it happened.
 */
export async function forgetPatientEvents(db: Kysely<DB>, tenantId: string, patientId: string): Promise<void> {
  await db
    .deleteFrom('events')
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('patient_id', '=', patientId), sql<boolean>`strpos(data::text, ${patientId}) > 0`]))
    .execute();
}
