import { type SqlBool, sql } from 'kysely';
import { type PatientData, PURGED_TEXT } from '../../events/work.ts';

/**
 * A patient takes part in calendar events as a participant (role `patient`), named by id with no
 * key to their row: the patient's delete and purge take them out of the events, which stay the
 * care team's. A purge also clears what the events say of the patient: an event they take part in,
 * or built on an encounter of theirs, keeps its times, kind, status and other participants (the
 * care team's schedule), its title and description read PURGED_TEXT, and the structured data a
 * client attached goes.
 */
export const calendarPatientData: PatientData = {
  tables: [],
  mentions: { calendar_event_participants: { by: 'participant_id (role patient)', record: 'calendar_events' } },
  texts: [
    {
      table: 'calendar_events',
      naming: (scope, patientId) => sql<SqlBool>`(
        EXISTS (SELECT 1 FROM calendar_event_participants p
                 WHERE p.tenant_id = ${scope.tenantId} AND p.event_id = calendar_events.id
                   AND p.participant_id = ${patientId} AND lower(p.participant_role) = 'patient')
        OR calendar_events.encounter_id IN (SELECT r.id FROM cdt_records r
                 WHERE r.tenant_id = ${scope.tenantId} AND r.patient_id = ${patientId}))`,
      cleared: { title: PURGED_TEXT, description: PURGED_TEXT, additional_info: null, external_event_metadata: null },
      other: [
        'event_type',
        'event_status',
        'event_mode',
        'event_color',
        'timezone',
        'external_id',
        'external_calendar_event_id',
        'created_by_name',
        'updated_by_name',
      ],
      stamped: true,
    },
  ],
  remove: async (w, scope, patientId) => {
    await w.db
      .deleteFrom('calendar_event_participants')
      .where('tenant_id', '=', scope.tenantId)
      .where('instance_id', '=', scope.instanceId)
      .where('participant_id', '=', patientId)
      .where(sql<boolean>`lower(participant_role) = 'patient'`)
      .execute();
  },
};
