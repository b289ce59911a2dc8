import type { Timestamp } from '../../db/schema.ts';

/** The access log's seals (migration 0029), merged into the database's `DB` type; the log itself is the platform's. */

export interface AccessLogSealsTable {
  tenant_id: string;
  seq: number;
  through_at: Timestamp;
  through_id: string;
  records: number;
  previous_hash: string;
  hash: string;
  sealed_at: Timestamp;
  removed_at: Timestamp | null;
}

declare module '../../db/schema.ts' {
  interface DB {
    access_log_seals: AccessLogSealsTable;
  }
}
