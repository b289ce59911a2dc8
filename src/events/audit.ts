import type { Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { parameterBatches } from '../db/batches.ts';
import type { DB, NewRow } from '../db/schema.ts';

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

/** The authorship most API objects show (goals, comments, enrolments...), read off the stamp columns. */
export function authorshipView(row: {
  created_at: Date;
  created_by_name: string | null;
  updated_at: Date;
  updated_by_name: string | null;
}) {
  return {
    createdByName: row.created_by_name,
    createdAt: row.created_at,
    updatedByName: row.updated_by_name,
    updatedAt: row.updated_at,
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

/**
 * Every audit action, a typed catalog like the error codes: each area declares its actions beside
 * its routes (`modules/<area>/catalog.ts`) and adds them with
 * `declare module '.../events/audit.ts' { interface AuditActions extends NamesOf<typeof areaActions> {} }`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: areas merge their actions into it.
export interface AuditActions {}
export type AuditAction = keyof AuditActions & string;

/** Action name → what it records, for the API docs. */
export type AuditActionCatalog = Record<string, string>;

const registered = new Map<string, string>();

/** Makes actions known at run time (the app merges each area's once); recordAudit refuses others. */
export function registerAuditActions(catalog: AuditActionCatalog): void {
  for (const [action, meaning] of Object.entries(catalog)) registered.set(action, meaning);
}

export function auditActionCatalog(): ReadonlyMap<string, string> {
  return registered;
}

export interface AuditEntry {
  /** `<ENTITY>_<CREATED|UPDATED|DELETED>` or a domain action such as `FORMATION_PUBLISHED`. */
  action: AuditAction;
  entityType: string;
  entityId: string | null;
  patientId?: string | null;
  /** Names of the fields a change touched; never their values, which may be PHI. */
  changedFields?: string[];
}

/** The audit rows of `entries`, checked against the declared actions. */
export function auditRows(actor: Actor, entries: AuditEntry[]): NewRow<'audit_events'>[] {
  const unknown = entries.find((entry) => !registered.has(entry.action));
  if (unknown) throw new Error(`audit action ${unknown.action} is not declared by any area`);
  const occurredAt = new Date();
  return entries.map((entry) => ({
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
}

/**
 * Writes audit rows in the caller's transaction, so a change and its audit record commit or
 * roll back together. A write of one statement puts `auditRows` into its own statement instead.
 */
export async function recordAudit(trx: Kysely<DB>, actor: Actor, entries: AuditEntry | AuditEntry[]): Promise<void> {
  const rows = auditRows(actor, Array.isArray(entries) ? entries : [entries]);
  for (const batch of parameterBatches(rows)) await trx.insertInto('audit_events').values(batch).execute();
}
