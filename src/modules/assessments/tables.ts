import type { Authorship, Json } from '../../db/schema.ts';

/** The assessments area's table, merged into the database's `DB` type. */

export interface AssessmentRecordsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  patient_id: string;
  assessment_name: string;
  assessment_title: string | null;
  /** NEW, IN_PROGRESS or COMPLETED (DECISIONS §7). */
  status: string;
  /** 1 at creation, one more on every write. */
  version: number;
  pfa: boolean;
  template_exists: boolean;
  /** `<cdt>__<field>` → the answer; only answered keys. */
  answers: Json<Record<string, unknown>>;
  /** [answer key, label] in the formation's order at the last write (a jsonb object would sort its keys). */
  questions: Json<[string, string][]>;
  scoring: Json<Record<string, unknown>>;
  folder_id: string | null;
  expiration_date: Date | null;
  encounter_id: string | null;
  external_guid: string;
  finalized_date: Date | null;
  completed_by: string | null;
  completed_by_name: string | null;
  completed_version: number | null;
  recompleted_by: string | null;
  recompleted_by_name: string | null;
  recompleted_at: Date | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    assessment_records: AssessmentRecordsTable;
  }
}
