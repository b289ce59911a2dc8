import { uuidv7 } from '../db/ids.ts';
import type { NewRow } from '../db/schema.ts';

/**
 * Who makes a change, for the audit log and the created/updated-by fields. Requests act as
 * their caller; the CLI and background work act as SYSTEM.
 */
export interface Actor {
  tenantId: string;
  instanceId: string | null;
  type: 'API_CLIENT' | 'USER' | 'SYSTEM';
  id: string | null;
  /** Shown as createdByName/updatedByName: `API_CLIENT:<name>`, a user's full name, or `SYSTEM:<what>`. */
  name: string;
  requestId: string | null;
  method: string | null;
  route: string | null;
}

type Writer = Pick<Actor, 'id' | 'name'>;

/** The stamp columns a new row of any record table gets: who created it, and when (the write's instant). */
export function createdStamp(actor: Writer, at: Date) {
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
export function updatedStamp(actor: Writer, at: Date) {
  return { updated_at: at, updated_by: actor.id, updated_by_name: actor.name };
}

/** SYSTEM acting: `SYSTEM:cli` for the command line, `SYSTEM:jobs` for background work. */
export function systemActor(tenantId: string, instanceId: string | null = null, name = 'SYSTEM:cli'): Actor {
  return {
    tenantId,
    instanceId,
    type: 'SYSTEM',
    id: null,
    name,
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

/**
 * Action name → what it records (the API docs) and the events it writes to the outbox beside the
 * audit row (DECISIONS §9: every create, update and delete of a stored record is an event). An
 * action names its events here, once, so no write emits them by hand.
 */
export type AuditActionCatalog = Record<string, { description: string; events: readonly string[] }>;

const registered = new Map<string, AuditActionCatalog[string]>();

/** Makes actions known at run time (the app merges each area's once); a write refuses others. */
export function registerAuditActions(catalog: AuditActionCatalog): void {
  for (const [action, entry] of Object.entries(catalog)) registered.set(action, entry);
}

/** The events an action writes; an undeclared action is a programming error. */
export function eventsOfAction(action: string): readonly string[] {
  const entry = registered.get(action);
  if (!entry) throw new Error(`audit action ${action} is not declared by any area`);
  return entry.events;
}

export interface AuditEntry {
  /** `<ENTITY>_<CREATED|UPDATED|DELETED>` or a domain action such as `FORMATION_PUBLISHED`. */
  action: AuditAction;
  entityType: string;
  entityId: string | null;
  patientId?: string | null;
  /** Names of the fields a change touched; never their values, which may be PHI. */
  changedFields?: string[];
  /** Names (never values) that say what the record is, for its events: `{cdtName}`, `{pdtName}`. */
  about?: Record<string, string>;
}

/** The audit row of an entry, written with the change (the unit of work buffers and writes them). */
export function auditRow(actor: Actor, entry: AuditEntry, at: Date): NewRow<'audit_events'> {
  eventsOfAction(entry.action);
  return {
    tenant_id: actor.tenantId,
    id: uuidv7(),
    instance_id: actor.instanceId,
    occurred_at: at,
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
  };
}
