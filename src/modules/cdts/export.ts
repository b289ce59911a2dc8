import { sql } from 'kysely';
import type { Context } from '../../http/context.ts';
import type { ExportSource } from '../../http/export.ts';
import { CdtRecord, cdtRecordView } from '../../records/cdt-view.ts';
import type { CdtRecordRow } from '../../records/store.ts';

/**
 * The formation's CDT records in the bulk export, each as GET .../cdts/{cdtName}/{recordId}
 * shows it. System records (encounters, assessment links, document summaries) are stored in the
 * same table under names starting with `_`; the `where` repeats the partial index's predicate
 * (0020_export). The types' fields come from the formation, read once a page.
 */
async function cdtRecordViews(ctx: Context, rows: CdtRecordRow[]) {
  const fieldNames = new Map((await ctx.formation()).cdts?.map((cdt) => [cdt.name, cdt.fields.map((field) => field.name)]));
  // A type the formation dropped: its records show the values they kept.
  return rows.map((row) => cdtRecordView(row, fieldNames.get(row.cdt_name) ?? []));
}

export const cdtRecordExport: ExportSource = {
  permission: 'CDT_RECORD_EXPORT',
  summary: 'CDT records',
  item: CdtRecord,
  table: 'cdt_records',
  patientsOf: { column: 'patient_id' },
  where: () => [sql`left(r.cdt_name, 1) <> '_'`],
  patientColumn: 'patient_id',
  view: (ctx, rows) => cdtRecordViews(ctx, rows),
};
