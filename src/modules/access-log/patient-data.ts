import { sql } from 'kysely';
import type { PatientData } from '../../events/work.ts';

/**
 * The access log is kept: it is the accounting of who saw the patient's records (HIPAA 45 CFR
 * 164.528, six years), and its rows are hash-chained, so removing one would break the chain. A row
 * names patients by id only: no names, phones or emails.
 */
export const accessLogPatientData: PatientData = {
  tables: ['access_log'],
  kept: async (db, scope, patientId) => {
    const { rows } = await sql<{ count: string }>`
      SELECT count(*) AS count FROM access_log
      WHERE tenant_id = ${scope.tenantId} AND patient_ids @> ARRAY[${patientId}]::uuid[]
    `.execute(db);
    return {
      resource: 'ACCESS_LOG',
      reason:
        "Accounting of disclosures (HIPAA 45 CFR 164.528), hash-chained: who saw the patient's records; the patient's id only",
      count: Number(rows[0]?.count ?? 0),
    };
  },
};
