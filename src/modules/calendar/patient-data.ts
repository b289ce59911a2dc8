import { sql } from 'kysely';
import type { PatientData } from '../../events/work.ts';

/**
 * A patient takes part in calendar events as a participant (role `patient`), named by id with no
 * key to their row: the patient's delete and purge take them out of the events, which stay the
 * care team's.
 */
export const calendarPatientData: PatientData = {
  tables: [],
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
