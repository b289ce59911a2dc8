import type { Json, Timestamp } from '../../../db/schema.ts';
import type { KeptRecords } from '../../../events/work.ts';

/** A patient's purge (migration 0038), merged into the database's `DB` type. */

/** QUEUED until its job has run (DONE). */
export type PurgeStatus = 'QUEUED' | 'DONE';

export interface PatientPurgesTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  /** The purged patient's id: no other data of theirs. */
  patient_id: string;
  status: PurgeStatus;
  /** What stays of the patient, and why: as foreseen at the request, then as the purge left it. */
  kept: Json<KeptRecords[]>;
  requested_by: string | null;
  requested_by_name: string | null;
  created_at: Timestamp;
  completed_at: Timestamp | null;
}

declare module '../../../db/schema.ts' {
  interface DB {
    patient_purges: PatientPurgesTable;
  }
}
