import type { Json, Timestamp } from '../../db/schema.ts';

/** The programs area's tables, merged into the database's `DB` type. */

export interface ProgramPhase {
  timestamp: string;
  createdBy: string | null;
  createdByName: string | null;
  name: string;
  title: string | null;
  description: string | null;
  currentVersion: string;
  deleted: boolean;
}

export interface PatientProgramsTable {
  tenant_id: string;
  id: string;
  instance_id: string;
  patient_id: string;
  program_name: string;
  status: string;
  current_phase: Json<ProgramPhase>;
  path_history: Json<ProgramPhase[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
  updated_by: string | null;
  updated_by_name: string | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    patient_programs: PatientProgramsTable;
  }
}
