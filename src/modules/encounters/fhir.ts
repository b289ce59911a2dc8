import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import {
  compact,
  dateParam,
  type FhirParam,
  type FhirResource,
  invalidParam,
  isUuid,
  nothing,
  reference,
  referenceParam,
  tokenOf,
} from '../../http/fhir.ts';
import { placeId } from '../calendar/index.ts';
import { ENCOUNTER, type EncounterStatus } from './types.ts';

/**
 * A Cairn encounter (a CDT record of `__encounter__`) as a FHIR R4 Encounter, profiled as US Core
 * 6.1.0 Encounter, its appointment (the calendar event built for it) composed into the same
 * statement. Each field's mapping is in docs/fhir.md; what has no home (title, notes, visit
 * services and costs, the disposition, comments) is said there.
 */

export const ENCOUNTER_ID_SYSTEM = 'https://cairn.health/fhir/sid/encounter-id';
/** The formation's encounter templates, which are what Cairn calls an encounter's type. */
export const ENCOUNTER_TEMPLATE_SYSTEM = 'https://cairn.health/fhir/CodeSystem/encounter-template';

const DATA_ABSENT = 'http://terminology.hl7.org/CodeSystem/data-absent-reason';
const ACT_CODE = 'http://terminology.hl7.org/CodeSystem/v3-ActCode';
/** The encounter's owner: the appointment's host, or the user who made it. */
const PRIMARY_PERFORMER = {
  system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType',
  code: 'PPRF',
  display: 'primary performer',
};

/** Cairn's statuses as FHIR's EncounterStatus: DRAFT and OPEN have not started yet. */
const STATUSES: Record<EncounterStatus, string> = {
  DRAFT: 'planned',
  OPEN: 'planned',
  ACTIVE: 'in-progress',
  FINALIZED: 'finished',
  CANCELLED: 'cancelled',
};

/** FHIR's EncounterStatus codes: the ones Cairn never shows match nothing; any other is a 400. */
const FHIR_STATUSES = [
  'planned',
  'arrived',
  'triaged',
  'in-progress',
  'onleave',
  'finished',
  'cancelled',
  'entered-in-error',
  'unknown',
];

/** The encounter's appointment, as the composed column carries it (timestamps as JSON text). */
interface Appointment {
  id: string;
  start: string;
  end: string;
  mode: string | null;
}

type EncounterRow = Row<'cdt_records'> & { appointment: Appointment | null };

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/**
 * 002's location rule reads the appointment's mode: CALL and VIDEO are virtual (`VR`), IN-PERSON
 * or none in person (`AMB`). Without an appointment Cairn does not know, which US Core says with
 * data-absent-reason's `unknown` for a coded element.
 */
function classOf(appointment: Appointment | null) {
  if (!appointment) return { system: DATA_ABSENT, code: 'unknown', display: 'Unknown' };
  const mode = appointment.mode?.toUpperCase();
  return mode === 'CALL' || mode === 'VIDEO'
    ? { system: ACT_CODE, code: 'VR', display: 'virtual' }
    : { system: ACT_CODE, code: 'AMB', display: 'ambulatory' };
}

function encounterOf(row: EncounterRow) {
  const values = row.values as Record<string, unknown>;
  const { appointment } = row;
  const template = text(values.type);
  const owner = text(values.ownerUserId);
  const encounterClass = classOf(appointment);
  const location = text(values.location);
  return {
    resourceType: 'Encounter',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [{ use: 'usual', system: ENCOUNTER_ID_SYSTEM, value: row.id }],
    status: STATUSES[values.status as EncounterStatus] ?? 'unknown',
    class: encounterClass,
    // US Core needs a type: the template, or data-absent-reason's `unknown` for an encounter without one.
    type: [
      template
        ? {
            coding: [{ system: ENCOUNTER_TEMPLATE_SYSTEM, code: template, display: text(values.templateTitle) }],
            text: text(values.templateTitle) ?? template,
          }
        : { coding: [{ system: DATA_ABSENT, code: 'unknown', display: 'Unknown' }] },
    ],
    subject: reference('Patient', row.patient_id),
    participant:
      owner && isUuid(owner) ? [{ type: [{ coding: [PRIMARY_PERFORMER] }], individual: reference('Practitioner', owner) }] : [],
    appointment: appointment ? [reference('Appointment', appointment.id)] : [],
    ...(appointment
      ? { period: { start: new Date(appointment.start).toISOString(), end: new Date(appointment.end).toISOString() } }
      : {}),
    // A place only in person: a call's location is the patient's phone, a video's its address.
    // The place is kept as a Location when written (calendar/places.ts): its id from the text.
    location:
      location && encounterClass.code === 'AMB'
        ? [
            {
              location: {
                reference: `Location/${placeId({ tenantId: row.tenant_id, instanceId: row.instance_id }, location)}`,
                display: location,
              },
            },
          ]
        : [],
    // Who provides the care: the instance, served as Organization/{instanceId} (US Core 6.1.0 must-support).
    serviceProvider: reference('Organization', row.instance_id),
  };
}

/** The encounter's status (the status index's expression, written as it is there). */
const status = sql`(r.values ->> 'status')`;
const templateName = sql`(r.values ->> 'type')`;

const statusParam: FhirParam = {
  type: 'token',
  where: (token) => {
    const { code } = tokenOf(token);
    if (!FHIR_STATUSES.includes(code)) throw invalidParam('status', `must be one of ${FHIR_STATUSES.join(', ')}`);
    if (code === 'unknown') return sql<SqlBool>`coalesce(${status}, '') NOT IN (${sql.join(Object.keys(STATUSES))})`;
    const cairn = Object.entries(STATUSES)
      .filter(([, fhir]) => fhir === code)
      .map(([value]) => value);
    return cairn.length > 0 ? sql<SqlBool>`${status} IN (${sql.join(cairn)})` : nothing;
  },
};

/** `type`: a template's name (any system or Cairn's), or data-absent-reason's `unknown` for none. */
const typeParam: FhirParam = {
  type: 'token',
  where: (token) => {
    const { system, code } = tokenOf(token);
    const none = sql<SqlBool>`${templateName} IS NULL`;
    if (system === DATA_ABSENT) return code === 'unknown' ? none : nothing;
    if (system !== undefined && system !== ENCOUNTER_TEMPLATE_SYSTEM) return nothing;
    const named = sql<SqlBool>`${templateName} = ${code}`;
    return system === undefined && code === 'unknown' ? sql<SqlBool>`(${named} OR ${none})` : named;
  },
};

const identifierParam: FhirParam = {
  type: 'token',
  where: (token) => {
    const { system, code } = tokenOf(token);
    const ours = system === undefined || system === '' || system === ENCOUNTER_ID_SYSTEM;
    return ours && isUuid(code) ? sql<SqlBool>`r.id = ${code}` : nothing;
  },
};

/**
 * The mode of the encounter's appointment (the one the resource shows: its first), upper-cased;
 * '' for an appointment without a mode, NULL for an encounter without one. Read per encounter on
 * the events' encounter index (0011), so with `patient` only the patient's encounters are looked at.
 */
const appointmentMode = (tenantId: string) =>
  sql`(SELECT coalesce(upper(e.event_mode), '') FROM calendar_events e
       WHERE e.tenant_id = ${tenantId} AND e.encounter_id = r.id ORDER BY e.start_at LIMIT 1)`;

const VIRTUAL_MODES = ['CALL', 'VIDEO'];

/** `class`: ActCode's `VR` and `AMB` as classOf shows them, data-absent-reason's `unknown` an encounter without an appointment. */
const classParam: FhirParam = {
  type: 'token',
  where: (token, tenantId) => {
    const { system, code } = tokenOf(token);
    const mode = appointmentMode(tenantId);
    if ((system === undefined || system === DATA_ABSENT) && code === 'unknown') return sql<SqlBool>`${mode} IS NULL`;
    if (system !== undefined && system !== ACT_CODE) return nothing;
    if (code === 'VR') return sql<SqlBool>`${mode} IN (${sql.join(VIRTUAL_MODES)})`;
    if (code === 'AMB') return sql<SqlBool>`${mode} NOT IN (${sql.join(VIRTUAL_MODES)})`;
    return nothing;
  },
};

const appointmentStart = dateParam('date', 'start_at', 'instant');

/**
 * `date`: the start of the encounter's appointment, read from the calendar events that belong to
 * an encounter (0034's index: tenant, start, encounter). The events are aliased `r` too, so
 * dateParam's conditions on `r.start_at` read the event's; the `r.id` before IN is the encounter's.
 */
const dateOfAppointment: FhirParam = {
  type: 'date',
  where: (value, tenantId) =>
    sql<SqlBool>`r.id IN (SELECT r.encounter_id FROM calendar_events r
      WHERE r.tenant_id = ${tenantId} AND r.encounter_id IS NOT NULL AND ${appointmentStart.where(value, tenantId)})`,
};

/**
 * Encounter, as US Core 6.1.0 profiles it: an instance's encounter records (their partial
 * indexes' predicate repeated as a literal, so they serve it), searched by patient, date, status,
 * type, class and identifier, each served by an index leading with the tenant (0003, 0011, 0034).
 */
export const fhirEncounter: FhirResource = {
  type: 'Encounter',
  profile: 'http://hl7.org/fhir/us/core/StructureDefinition/us-core-encounter',
  permission: 'ENCOUNTER_READ',
  table: 'cdt_records',
  instanceScoped: true,
  where: [sql<SqlBool>`r.cdt_name = ${sql.lit(ENCOUNTER)}`],
  patient: { column: 'patient_id' },
  logAs: 'ENCOUNTER',
  auditEntity: 'ENCOUNTER',
  // As GET /patients/{pid}/encounters/{id} answers (DECISIONS §2).
  notFound: 'DT_RECORD_NOT_FOUND',
  columns: (tenantId) => [
    sql`(SELECT json_build_object('id', e.id, 'start', e.start_at, 'end', e.end_at, 'mode', e.event_mode)
         FROM calendar_events e WHERE e.tenant_id = ${tenantId} AND e.encounter_id = r.id
         ORDER BY e.start_at LIMIT 1)`.as('appointment'),
  ],
  params: {
    patient: referenceParam('Patient', 'patient_id'),
    subject: referenceParam('Patient', 'patient_id'),
    date: dateOfAppointment,
    status: statusParam,
    type: typeParam,
    class: classParam,
    identifier: identifierParam,
  },
  toFhir: (row: EncounterRow) => compact(encounterOf(row)),
};
