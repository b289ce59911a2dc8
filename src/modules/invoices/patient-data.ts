import type { PatientData } from '../../events/work.ts';

/**
 * An invoice is a bill the practice issued: tax and accounting law keep it for years (the IRS's
 * 7 years for records of income), so a purge keeps it, the patient's name on it included, and
 * lists it. The patient's delete removes it, as it did when its key cascaded (migration 0038).
 */
export const invoicePatientData: PatientData = {
  tables: ['invoices'],
  remove: async (w, scope, patientId) => {
    await w.db.deleteFrom('invoices').where('tenant_id', '=', scope.tenantId).where('patient_id', '=', patientId).execute();
  },
  purge: async () => {},
  kept: async (db, scope, patientId) => {
    const rows = await db
      .selectFrom('invoices')
      .select('id')
      .where('tenant_id', '=', scope.tenantId)
      .where('patient_id', '=', patientId)
      .orderBy('id')
      .execute();
    if (rows.length === 0) return undefined;
    const ids = rows.map((row) => row.id);
    return {
      resource: 'INVOICE',
      reason: 'Legal retention of issued invoices (tax and accounting records)',
      count: ids.length,
      ids,
    };
  },
};
