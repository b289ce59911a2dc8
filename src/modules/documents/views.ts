import { type FileEntry, fileEntry } from '../../files/files.ts';
import type { FileRow } from '../../files/store.ts';
import { type CdtRecordView, cdtRecordView } from '../../records/cdt-view.ts';
import type { CdtRecordRow } from '../../records/store.ts';

/** A summary as the API shows it: its CDT record, with `files` null while it has none (PROD-SHAPES). */
export function summaryView(row: CdtRecordRow, files: readonly FileEntry[]): CdtRecordView {
  const view = cdtRecordView(row, ['type']);
  return { ...view, jsonBody: { ...view.jsonBody, files: files.length > 0 ? files : null } };
}

/** Summaries with their files, the files grouped by owner from one query. */
export function summaryViews(rows: readonly CdtRecordRow[], files: readonly FileRow[]): CdtRecordView[] {
  const byOwner = new Map<string, FileEntry[]>();
  for (const file of files) {
    const entries = byOwner.get(file.owner_id) ?? [];
    entries.push(fileEntry(file));
    byOwner.set(file.owner_id, entries);
  }
  return rows.map((row) => summaryView(row, byOwner.get(row.id) ?? []));
}
