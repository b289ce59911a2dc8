import type { PatientData } from '../../events/work.ts';

/**
 * A patient's contacts go with the patient (their key cascades); the PDT records they link to are
 * the practice's directory, shared by many patients, and stay. A purge first learns the contacts'
 * numbers and addresses, which find their messages elsewhere (the sandbox's outbox).
 */
export const contactPatientData: PatientData = {
  tables: ['contacts'],
  addresses: async (db, scope, patientId) => {
    const rows = await db
      .selectFrom('contacts')
      .select(['email', 'phone', 'secondary_phone'])
      .where('tenant_id', '=', scope.tenantId)
      .where('patient_id', '=', patientId)
      .execute();
    return rows.flatMap((row) => [row.email, row.phone, row.secondary_phone]).filter((value): value is string => Boolean(value));
  },
};
