import type { Authorship } from '../../db/schema.ts';

/** The encounters area's own table (migration 0012); encounters themselves are CDT records. */

export interface EncounterCommentsTable extends Authorship {
  tenant_id: string;
  instance_id: string;
  id: string;
  encounter_id: string;
  patient_id: string;
  text: string;
}

declare module '../../db/schema.ts' {
  interface DB {
    encounter_comments: EncounterCommentsTable;
  }
}
