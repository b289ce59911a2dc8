import { type FileEntry, fileEntry } from '../../files/files.ts';
import type { FileRow } from '../../files/store.ts';
import { type CdtRecordView, cdtRecordView } from '../../records/cdt-view.ts';
import type { CdtRecordRow } from '../../records/store.ts';

/** A summary as the API shows it: its CDT record, with `files` null while it has none (PROD-SHAPES). */
export function summaryView(row: CdtRecordRow, files: readonly FileEntry[]): CdtRecordView {
  const view = cdtRecordView(row, ['type']);
  return { ...view, jsonBody: { ...view.jsonBody, files: files.length > 0 ? files : null } };
}

/** Summaries with their files, grouped by owner (from one query; linked or not). */
export function summaryViews(rows: readonly CdtRecordRow[], byOwner: ReadonlyMap<string, readonly FileEntry[]>): CdtRecordView[] {
  return rows.map((row) => summaryView(row, byOwner.get(row.id) ?? []));
}

/** Files grouped by the record they belong to, as entries without links. */
export function entriesByOwner(files: readonly FileRow[]): Map<string, FileEntry[]> {
  const byOwner = new Map<string, FileEntry[]>();
  for (const file of files) {
    const entries = byOwner.get(file.owner_id) ?? [];
    entries.push(fileEntry(file));
    byOwner.set(file.owner_id, entries);
  }
  return byOwner;
}
