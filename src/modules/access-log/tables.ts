import type { ColumnType } from 'kysely';
import type { Json, Timestamp } from '../../db/schema.ts';

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
  /** 1: hashed with times in milliseconds (before migration 0041); 2: every column as stored. */
  format: ColumnType<number, number | undefined, never>;
  /** RECORDS, or RETENTION: a removal's own seal (its `removal`, no records). */
  kind: ColumnType<SealKind, SealKind | undefined, never>;
  removal: Json<Removal> | null;
}

export type SealKind = 'RECORDS' | 'RETENTION';

/** What a retention seal says it removed: every record through seal `anchor`'s border. */
export interface Removal {
  anchor: number;
  throughAt: string;
  throughId: string;
  records: number;
  retentionDays: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    access_log_seals: AccessLogSealsTable;
  }
}
