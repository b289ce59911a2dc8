import type { PatientData } from '../../events/work.ts';
import type {} from './purge/tables.ts';

/**
 * The patients area's own rows of a patient: the row and its care team (cascaded), and the record
 * of their purge, which stays: it names the patient's id only, and says the erasure was done.
 */
export const patientPatientData: PatientData = {
  tables: ['patients', 'patient_care_team', 'patient_purges'],
  addresses: async (db, scope, patientId) => {
    const row = await db
      .selectFrom('patients')
      .select(['phone', 'secondary_phone', 'email', 'secondary_email'])
      .where('tenant_id', '=', scope.tenantId)
      .where('instance_id', '=', scope.instanceId)
      .where('id', '=', patientId)
      .executeTakeFirst();
    return row
      ? [row.phone, row.secondary_phone, row.email, row.secondary_email].filter((value): value is string => Boolean(value))
      : [];
  },
  kept: async () => ({
    resource: 'PATIENT_PURGE',
    reason: "The record of this purge (the patient's id, who asked, when): proof the erasure was done",
    count: 1,
  }),
};
