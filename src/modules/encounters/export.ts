import { sql } from 'kysely';
import type { ExportSource } from '../../http/export.ts';
import { CdtRecord, cdtRecordView } from '../../records/cdt-view.ts';
import { Records } from '../../records/handle.ts';
import { commentView } from './parts.ts';
import { EncounterComment, EncounterRecord } from './schemas.ts';
import { DISPOSITION, dispositionType, ENCOUNTER } from './types.ts';
import { encounterViews } from './views.ts';

/**
 * Encounters and their parts in the bulk export (002 "Export"). Both record types live in
 * cdt_records: each `where` repeats its partial index's predicate as a literal (0012's encounters
 * index, 0020's dispositions index; a bound parameter would not match it), so the page is read on it.
 */

/** Encounters: each as GET /patients/{pid}/encounters/{id} shows it (appointment, names and local times loaded for the page). */
export const encounterExport: ExportSource = {
  permission: 'ENCOUNTER_EXPORT',
  summary: 'encounters',
  item: EncounterRecord,
  table: 'cdt_records',
  patientsOf: { column: 'patient_id' },
  where: () => [sql`r.cdt_name = ${sql.lit(ENCOUNTER)}`],
  view: async (ctx, rows) => (await encounterViews(ctx, rows)).views,
};

/** Encounter comments: each as GET /patients/{pid}/encounters/{eid}/comments shows one. */
export const encounterCommentExport: ExportSource = {
  permission: 'ENCOUNTER_COMMENT_EXPORT',
  summary: 'encounter comments',
  item: EncounterComment,
  table: 'encounter_comments',
  patientsOf: { column: 'patient_id' },
  view: (_ctx, rows) => rows.map(commentView),
};

/** Dispositions: each as GET /patients/{pid}/encounters/{eid}/disposition shows it (the formation's disposition fields). */
export const encounterDispositionExport: ExportSource = {
  permission: 'ENCOUNTER_DISPOSITION_EXPORT',
  summary: 'encounter dispositions',
  item: CdtRecord,
  table: 'cdt_records',
  patientsOf: { column: 'patient_id' },
  where: () => [sql`r.cdt_name = ${sql.lit(DISPOSITION)}`],
  view: async (ctx, rows) => {
    const { fieldNames } = (await Records.system(ctx, dispositionType)).type;
    return rows.map((row) => cdtRecordView(row, fieldNames));
  },
};
