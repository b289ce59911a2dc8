import type { Row } from '../../db/schema.ts';
import type { Context } from '../../http/context.ts';
import { compact, type FhirResource, isUuid, reference, US_CORE_VERSION } from '../../http/fhir.ts';
import { mayReadType } from '../../http/scopes.ts';
import { findRow, formedOf } from './store.ts';

/**
 * Provenance (US Core 6.1.0 Provenance) from the audit log (docs/fhir.md, "Provenance"): every
 * write leaves an audit row in its own transaction, and a row about a record Cairn serves as FHIR
 * is that record's Provenance, by the row's id. A resource declares which audit entity its
 * records' changes are logged under (`FhirResource.auditEntity`); a row of any other entity (a
 * webhook's, an API client's) is no Provenance here. A Provenance is read only where its target is.
 */

export const PROVENANCE = 'Provenance';
export const PROVENANCE_PROFILE = 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-provenance';

/** An API client has no FHIR resource in Cairn: its Device is named by this identifier system and its name. */
export const API_CLIENT_ID_SYSTEM = 'https://cairn.health/fhir/sid/api-client-id';
/** Cairn's own audit actions (PATIENT_UPDATED, SMS_SENT), beside v3-DataOperation's code where one fits. */
export const AUDIT_ACTION_SYSTEM = 'https://cairn.health/fhir/CodeSystem/audit-action';

const DATA_OPERATION = 'http://terminology.hl7.org/CodeSystem/v3-DataOperation';
const PARTICIPANT_TYPE = 'http://terminology.hl7.org/CodeSystem/provenance-participant-type';
const US_CORE_PARTICIPANT_TYPE = 'http://hl7.org/fhir/us/core/CodeSystem/us-core-provenance-participant-type';

export type AuditRow = Row<'audit_events'>;

/**
 * The served sources by the audit entity their changes are logged under: CDT_RECORD is
 * DocumentReference's (its `where` keeps to document summaries), CHAT, SMS and EMAIL Communication's.
 */
export function auditSources(fhir: ReadonlyMap<string, readonly FhirResource[]>): Map<string, FhirResource[]> {
  const sources = new Map<string, FhirResource[]>();
  for (const source of [...fhir.values()].flat()) {
    if (source.auditEntity) sources.set(source.auditEntity, [...(sources.get(source.auditEntity) ?? []), source]);
  }
  return sources;
}

/**
 * The source serving an audit row's record, where the caller may read it as its own read does: its
 * type's permission, a SMART token's scope for the type (and its patient's compartment, in
 * `findRow`), in this tenant and instance and not deleted. Undefined: the row is no Provenance the
 * caller may see (a record not served as FHIR, deleted since, another instance's, not readable).
 */
export async function readableTarget(
  ctx: Context,
  bySource: ReadonlyMap<string, readonly FhirResource[]>,
  row: AuditRow,
): Promise<FhirResource | undefined> {
  if (!row.entity_id || !isUuid(row.entity_id)) return undefined;
  const candidates = (bySource.get(row.entity_type) ?? []).filter(
    (source) => ctx.can(source.permission) && mayReadType(ctx.caller?.scopes, source.type),
  );
  // Several sources may share an entity (CDT_RECORD): each is looked in at once; an id is in one at most.
  // Each as the instance's formation maps it (a CDT's Observation).
  const formed = await Promise.all(candidates.map((source) => formedOf(ctx, source)));
  const found = await Promise.all(formed.map((source) => findRow(ctx, source, row.entity_id!)));
  return formed[found.findIndex((target) => target !== undefined)];
}

/** v3-DataOperation's code for an action about a served record: made, removed, or else changed. */
function dataOperation(action: string): 'CREATE' | 'UPDATE' | 'DELETE' {
  if (/_(CREATED|SENT|RECEIVED|PLACED)$/.test(action)) return 'CREATE';
  if (/_DELETED$|_PURGED$/.test(action)) return 'DELETE';
  // Every other action of a served record changes it (PATIENT_UPDATED, SMS_STATUS_CHANGED, ASSESSMENT_RECORD_COMPLETED).
  return 'UPDATE';
}

/** `API_CLIENT:intake` → `intake`: the display a Device carries is the client's own name. */
const clientName = (name: string | null) => (name?.startsWith('API_CLIENT:') ? name.slice('API_CLIENT:'.length) : name);

const agentType = (system: string, code: string, display: string) => ({ coding: [{ system, code, display }] });
const AUTHOR = agentType(PARTICIPANT_TYPE, 'author', 'Author');
const TRANSMITTER = agentType(US_CORE_PARTICIPANT_TYPE, 'transmitter', 'Transmitter');

/**
 * Who made the change, as US Core's agents: a user is the author, a Practitioner; an API client
 * is a Device Cairn does not serve (its id as an identifier, its name), the author and the
 * transmitter (the system that sent the record to Cairn); Cairn itself (SYSTEM: the command line,
 * background work, a vendor's callback) is the instance's Organization. US Core's provenance-1: a
 * Practitioner or Device agent acts on behalf of an Organization, the instance.
 */
function agentsOf(row: AuditRow, organization: { reference: string }) {
  if (row.actor_type === 'USER' && row.actor_id) {
    const who = { ...reference('Practitioner', row.actor_id), display: row.actor_name ?? undefined };
    return [{ type: AUTHOR, who, onBehalfOf: organization }];
  }
  if (row.actor_type === 'API_CLIENT' && row.actor_id) {
    const who = {
      type: 'Device',
      identifier: { system: API_CLIENT_ID_SYSTEM, value: row.actor_id },
      display: clientName(row.actor_name) ?? undefined,
    };
    return [
      { type: AUTHOR, who, onBehalfOf: organization },
      { type: TRANSMITTER, who, onBehalfOf: organization },
    ];
  }
  return [{ type: AUTHOR, who: { ...organization, display: row.actor_name ?? undefined } }];
}

/** An audit row about a record of `type` as its Provenance; `instanceId` is the Organization serving it. */
export function provenanceOf(row: AuditRow, type: string, instanceId: string): Record<string, unknown> {
  const organization = { reference: `Organization/${instanceId}` };
  const recorded = row.occurred_at.toISOString();
  return compact({
    resourceType: PROVENANCE,
    id: row.id,
    meta: { lastUpdated: recorded },
    target: [reference(type, row.entity_id)],
    recorded,
    activity: {
      coding: [
        { system: DATA_OPERATION, code: dataOperation(row.action) },
        { system: AUDIT_ACTION_SYSTEM, code: row.action },
      ],
    },
    agent: agentsOf(row, organization),
  });
}

/** The CapabilityStatement's entry: read by id, as US Core asks (SHALL); search is a MAY not served. */
export const provenanceCapability = {
  type: PROVENANCE,
  supportedProfile: [`${PROVENANCE_PROFILE}|${US_CORE_VERSION}`],
  interaction: [{ code: 'read' }],
};
