import type { Timestamp } from '../../../db/schema.ts';

/** The FHIR bulk export's tables (migration 0036), merged into the database's `DB` type. */

/** IN_PROGRESS until its job has walked every source (COMPLETED), or found one gone (FAILED). */
export type ExportStatus = 'IN_PROGRESS' | 'COMPLETED' | 'FAILED';

/** SYSTEM: `$export`; PATIENT: `Patient/$export`, the resources that belong to patients. */
export type ExportLevel = 'SYSTEM' | 'PATIENT';

export interface FhirExportsTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  status: ExportStatus;
  level: ExportLevel;
  /** The kick-off's full URL, for the manifest's `request`. */
  request: string;
  /** The keys of the sources walked, in order (sources.ts). */
  sources: string[];
  /** Their read permissions: following the export needs them all, as starting it did. */
  permissions: string[];
  /** `_since`: only resources updated after it. */
  since: Timestamp | null;
  /** Resources updated after it are left for the next export (`_since` = it). */
  transaction_time: Timestamp;
  /** The walk's place: the source being read, and the last id written of it (none yet: null). */
  source_index: number;
  after_id: string | null;
  /** Files written so far: the next file's `seq`. */
  files: number;
  /** bigint: pg answers it as a string. */
  resources: string | number;
  /** Why it FAILED (an error code, never patient data). */
  error: string | null;
  requested_by: string | null;
  requested_by_name: string;
  /** The patient whose compartment it reads, when a `patient/` token started it (http/scopes.ts). */
  compartment: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: Timestamp | null;
  /** When the export and its files are removed: retention after its end or its last progress. */
  expires_at: Timestamp;
}

export interface FhirExportFilesTable {
  tenant_id: string;
  instance_id: string;
  export_id: string;
  id: string;
  /** Its place in the export, from 0: its blob's name. */
  seq: number;
  /** The FHIR resource type of every line. */
  type: string;
  /** The read permission of its source: downloading it needs it. */
  permission: string;
  storage_key: string;
  resources: number;
  /** bigint: pg answers it as a string. */
  size: string | number;
  sha256: string;
  /** The patients its resources belong to, recorded in the access log when it is downloaded. */
  patient_ids: string[];
  created_at: Timestamp;
}

declare module '../../../db/schema.ts' {
  interface DB {
    fhir_exports: FhirExportsTable;
    fhir_export_files: FhirExportFilesTable;
  }
}
