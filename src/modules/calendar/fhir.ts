import { type SqlBool, sql } from 'kysely';
import type { Row } from '../../db/schema.ts';
import {
  compact,
  dateParam,
  type FhirResource,
  invalidParam,
  isUuid,
  nothing,
  reference,
  referencedId,
  tokenOf,
} from '../../http/fhir.ts';

/**
 * A calendar event as a FHIR R4 Appointment (US Core 5.0.1 has no Appointment profile: base R4),
 * its participants composed into the same statement. Each field's mapping is in docs/fhir.md.
 */

export const EVENT_ID_SYSTEM = 'https://cairn.health/fhir/sid/calendar-event-id';

/** FHIR's AppointmentStatus codes: an event status that is one of them (any case, `_` for `-`) is shown as it. */
const STATUSES = [
  'proposed',
  'pending',
  'booked',
  'arrived',
  'fulfilled',
  'cancelled',
  'noshow',
  'entered-in-error',
  'checked-in',
  'waitlist',
];

/**
 * Cairn's event status is the formation's free text: shown as the FHIR code it spells (CANCELED as
 * `cancelled`, NO_SHOW as `noshow`), and as `booked` otherwise (an event on the calendar is booked).
 * The same expression in SQL, so `status=` finds what the resource shows.
 */
const spelled = sql`replace(replace(lower(coalesce(r.event_status, '')), '_', '-'), 'canceled', 'cancelled')`;
const statusSql = sql<string>`CASE WHEN ${spelled} = 'no-show' THEN 'noshow' WHEN ${spelled} IN (${sql.join(STATUSES)}) THEN ${spelled} ELSE 'booked' END`;

function statusOf(eventStatus: string | null): string {
  const code = (eventStatus ?? '').toLowerCase().replaceAll('_', '-').replace('canceled', 'cancelled');
  if (code === 'no-show') return 'noshow';
  return STATUSES.includes(code) ? code : 'booked';
}

/** A participant's answer as FHIR's ParticipationStatus (required): `accepted` when Cairn has none it knows. */
function participationOf(status: string | null): string {
  const code = (status ?? '').toLowerCase().replaceAll('_', '-');
  return ['accepted', 'declined', 'tentative', 'needs-action'].includes(code) ? code : 'accepted';
}

interface Participant {
  id: string;
  role: string;
  status: string | null;
}

/** The place an in-person appointment is at: its encounter's location, kept as a Location (places.ts). */
interface Place {
  id: string;
  name: string;
}

type EventRow = Row<'calendar_events'> & { participants: Participant[]; place: Place | null };

const isPatient = (participant: Participant) => participant.role.toLowerCase() === 'patient';

function appointmentOf(row: EventRow) {
  const participants = row.participants.some((p) => p.id === row.host_id)
    ? row.participants
    : [{ id: row.host_id, role: 'host', status: 'accepted' }, ...row.participants];
  return {
    resourceType: 'Appointment',
    id: row.id,
    meta: { lastUpdated: row.updated_at.toISOString() },
    identifier: [{ use: 'usual', system: EVENT_ID_SYSTEM, value: row.id }],
    status: statusOf(row.event_status),
    ...(row.event_type ? { appointmentType: { text: row.event_type } } : {}),
    description: row.title,
    start: row.start_at.toISOString(),
    end: row.end_at.toISOString(),
    // Cairn keeps seconds; FHIR counts whole minutes (a positive number).
    ...(row.duration !== null && row.duration >= 60 ? { minutesDuration: Math.round(row.duration / 60) } : {}),
    comment: row.description,
    created: row.created_at.toISOString(),
    participant: [
      ...participants.map((participant) => ({
        ...(participant.id === row.host_id
          ? { type: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType', code: 'PPRF' }] }] }
          : {}),
        actor: reference(isPatient(participant) ? 'Patient' : 'Practitioner', participant.id),
        status: participationOf(participant.status),
      })),
      // R4's Appointment.participant.actor may be a Location: where an in-person appointment is.
      ...(row.place ? [{ actor: { reference: `Location/${row.place.id}`, display: row.place.name }, status: 'accepted' }] : []),
    ],
  };
}

/** Events that have the participant, by the participants' member index (tenant, instance, participant, time). */
function participantParam(type: 'Patient' | 'Practitioner') {
  return {
    type: 'reference' as const,
    where: (value: string, tenantId: string) => {
      const id = referencedId(type, value);
      if (!isUuid(id)) return nothing;
      const role = type === 'Patient' ? sql`lower(p.participant_role) = 'patient'` : sql`lower(p.participant_role) <> 'patient'`;
      const host = type === 'Practitioner' ? sql`r.host_id = ${id} OR ` : sql``;
      return sql<SqlBool>`(${host}EXISTS (SELECT 1 FROM calendar_event_participants p
        WHERE p.tenant_id = ${tenantId} AND p.instance_id = r.instance_id AND p.participant_id = ${id}
          AND p.event_id = r.id AND ${role}))`;
    },
  };
}

/** Appointment: an instance's calendar events, searched by patient, practitioner, date and status. */
export const fhirAppointment: FhirResource = {
  type: 'Appointment',
  permission: 'CALENDAR_READ',
  table: 'calendar_events',
  instanceScoped: true,
  patient: {
    of: (row: EventRow) => row.participants.filter(isPatient).map((p) => p.id),
    has: (patientId, tenantId) => participantParam('Patient').where(patientId, tenantId),
  },
  logAs: 'CALENDAR_EVENT',
  auditEntity: 'CALENDAR',
  notFound: 'CALENDAR_EVENT_NOT_FOUND',
  columns: (tenantId) => [
    sql`(SELECT coalesce(json_agg(json_build_object('id', p.participant_id, 'role', p.participant_role,
          'status', p.participation_status) ORDER BY p.position), '[]')
         FROM calendar_event_participants p WHERE p.tenant_id = ${tenantId} AND p.event_id = r.id)`.as('participants'),
    // The encounter's location as the place kept for it (its id as places.ts computes it), in person only.
    sql`(SELECT json_build_object('id', pl.id, 'name', pl.name)
         FROM cdt_records e
         JOIN places pl ON pl.tenant_id = ${tenantId} AND pl.instance_id = r.instance_id
           AND pl.id = md5(r.tenant_id::text || '/' || r.instance_id::text || '/' || lower(btrim(e.values ->> 'location')))::uuid
         WHERE e.tenant_id = ${tenantId} AND e.instance_id = r.instance_id AND e.id = r.encounter_id
           AND upper(coalesce(r.event_mode, '')) NOT IN ('CALL', 'VIDEO'))`.as('place'),
  ],
  params: {
    patient: participantParam('Patient'),
    practitioner: participantParam('Practitioner'),
    date: dateParam('date', 'start_at', 'instant'),
    status: {
      type: 'token',
      where: (token) => {
        const { code } = tokenOf(token);
        if (!STATUSES.includes(code)) throw invalidParam('status', `must be one of ${STATUSES.join(', ')}`);
        return sql<SqlBool>`${statusSql} = ${code}`;
      },
    },
  },
  toFhir: (row: EventRow) => compact(appointmentOf(row)),
};
