import type { Timestamp } from '../../db/schema.ts';

/** The patients area's tables, merged into the database's `DB` type. */

export interface PatientCareTeamTable {
  tenant_id: string;
  patient_id: string;
  user_id: string;
  point_of_contact: boolean;
  position: number;
  created_at: Timestamp;
}

declare module '../../db/schema.ts' {
  interface DB {
    patient_care_team: PatientCareTeamTable;
  }
}
