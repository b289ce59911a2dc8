import { sql } from 'kysely';
import type { PatientData } from '../../events/work.ts';

/**
 * The audit trail is kept: HIPAA's audit controls (45 CFR 164.312(b)) and its six-year retention
 * of documentation (164.316(b)(2)). A row is the fact of a change (action, entity, time, actor,
 * the names of the fields changed) and never held values, so it keeps only the patient's id.
 */
export const auditPatientData: PatientData = {
  tables: ['audit_events'],
  kept: async (db, scope, patientId) => {
    const { rows } = await sql<{ count: string }>`
      SELECT count(*) AS count FROM audit_events WHERE tenant_id = ${scope.tenantId} AND patient_id = ${patientId}
    `.execute(db);
    return {
      resource: 'AUDIT_EVENT',
      reason: "Audit trail (HIPAA 45 CFR 164.312(b)): the facts of each change, without values; the patient's id only",
      count: Number(rows[0]?.count ?? 0),
    };
  },
};
