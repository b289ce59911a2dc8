import { sql } from 'kysely';
import type { PatientData } from '../../../events/work.ts';
import { removeExport } from './store.ts';

/**
 * A bulk export's files name the patients they hold: a purge removes every export with a file
 * naming the patient (its files' blobs by `files.remove` jobs), whole, since a manifest missing a
 * file would be a wrong answer. The client exports again; a run in progress finds its export gone
 * and writes nothing more.
 */
export const bulkExportPatientData: PatientData = {
  tables: ['fhir_export_files'],
  purge: async (w, scope, patient) => {
    const exports = await w.db
      .selectFrom('fhir_exports')
      .selectAll()
      .where('tenant_id', '=', scope.tenantId)
      .where('instance_id', '=', scope.instanceId)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('fhir_export_files as f')
            .select('f.id')
            .where('f.tenant_id', '=', scope.tenantId)
            .whereRef('f.export_id', '=', 'fhir_exports.id')
            .where(sql<boolean>`f.patient_ids @> ARRAY[${patient.id}]::uuid[]`),
        ),
      )
      .forUpdate()
      .execute();
    for (const row of exports) await removeExport(w, scope, row);
  },
};
