import type { Context } from '../../http/context.ts';
import type { ExportSource } from '../../http/export.ts';
import type { PdtRecordRow } from '../../records/store.ts';
import { PdtRecord } from './schemas.ts';
import { pdtRecordView } from './views.ts';

/**
 * PDT records in the bulk export, each as GET /pdts/{pdtName}/{pdtId} shows it, soft-deleted
 * ones included (deleted: true), as that route still reads them. The types' fields come from the
 * formation, read once a page.
 */
async function pdtRecordViews(ctx: Context, rows: PdtRecordRow[]) {
  const fieldNames = new Map((await ctx.formation()).pdts?.map((pdt) => [pdt.name, pdt.fields.map((field) => field.name)]));
  // A type the formation dropped: its records show the values they kept.
  return rows.map((row) => pdtRecordView(row, { fieldNames: fieldNames.get(row.pdt_name) ?? [] }));
}

export const pdtRecordExport: ExportSource = {
  permission: 'PDT_RECORD_EXPORT',
  summary: 'PDT records',
  item: PdtRecord,
  table: 'pdt_records',
  patientsOf: { none: "a PDT record is a shared list entry (a clinic, a program), no patient's" },
  view: (ctx, rows) => pdtRecordViews(ctx, rows),
};
