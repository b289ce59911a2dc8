import type { Generated } from 'kysely';
import type { Json, Timestamp } from '../db/schema.ts';

/** The job queue's table (migration 0009), merged into the database's `DB` type. */

/**
 * QUEUED: due at `run_at` (or at once when it is null). WAITING: behind an earlier job of its
 * key. RUNNING: taken by a worker until `run_at`, its lease; a worker that dies lets it be taken
 * again then. DEAD: out of attempts, kept for an administrator to see and requeue. A job that
 * succeeds is deleted.
 */
export type JobState = 'QUEUED' | 'WAITING' | 'RUNNING' | 'DEAD';

export interface JobsTable {
  /** The nil uuid for the platform's own periodic work, which belongs to no tenant. */
  tenant_id: string;
  id: string;
  /** Enqueue order: a key's jobs run in it. */
  seq: Generated<number>;
  instance_id: string | null;
  kind: string;
  payload: Json<Record<string, unknown>>;
  state: JobState;
  queue_key: string | null;
  /** Periodic jobs: one row per kind, found again by this key. */
  dedupe_key: string | null;
  attempts: number;
  run_at: Date | null;
  locked_by: string | null;
  /** The last failure's error code or class, never its message (it may carry PHI). */
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../db/schema.ts' {
  interface DB {
    jobs: JobsTable;
  }
}
