import type { Timestamp } from '../db/schema.ts';

/** The files mechanism's tables (migration 0006), merged into the database's `DB` type. */

export interface FilesTable {
  tenant_id: string;
  instance_id: string;
  id: string;
  /** What the file belongs to: `DOCUMENT_SUMMARY` now; chat, email, fax and calls later. */
  owner_kind: string;
  owner_id: string;
  /** Set for files under a patient, so the patient's delete takes them (and queues their blobs). */
  patient_id: string | null;
  original_name: string;
  content_type: string;
  /** bigint: pg answers it as a string. */
  size: string | number;
  storage_key: string;
  sha256: string;
  created_at: Timestamp;
  created_by: string | null;
  created_by_name: string | null;
}

export interface FileRemovalsTable {
  tenant_id: string;
  storage_key: string;
  queued_at: Timestamp;
}

declare module '../db/schema.ts' {
  interface DB {
    files: FilesTable;
    file_removals: FileRemovalsTable;
  }
}
