import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Actor, AuditEntry, createdStamp, updatedStamp } from './audit.ts';
import type { NewEvent } from './outbox.ts';

/**
 * What a write may do inside its transaction: the one way to change stored records. `write(ctx,
 * work)` (src/work) opens the transaction, hands the work a `Work`, writes what it buffered (audit
 * rows, events, jobs) just before the commit, and runs the after-commit callbacks once the commit
 * has succeeded. A rollback writes none of it and runs none of them.
 */
export interface Work {
  /** The transaction: every query of the write goes through it (PGlite has a single connection). */
  readonly db: Kysely<DB>;
  /** The write's instant, from the services' clock: every stamp, audit row and event of the write carries it. */
  readonly now: Date;
  readonly actor: Actor;
  /** The stamp columns of a new row, and of a changed one, at the write's instant. */
  created(): ReturnType<typeof createdStamp>;
  updated(): ReturnType<typeof updatedStamp>;
  /**
   * A change of a stored record: its audit row, and the events its action declares (the area's
   * catalog), both written with the change. Events are left out when the write passed `skipEvent`.
   */
  changed(entries: AuditEntry | readonly AuditEntry[]): void;
  /** A domain event beyond those of the audit action (`TASK_STATUS_CHANGED`). */
  emit(event: NewEvent): void;
  /** Work to run later, on any node: enqueued in this transaction, so a rollback enqueues nothing. */
  enqueue(job: NewJob): void;
  /** Runs once after the commit succeeded (never after a rollback); its failure is logged, not thrown. */
  afterCommit(callback: () => unknown): void;
}

export interface NewJob {
  /** A job kind an area declares (`webhooks.deliver`). */
  kind: string;
  /** Ids and names only: payloads are stored and shown to administrators. */
  payload?: Record<string, unknown>;
  /** Not before this instant (scheduled work); at once by default. */
  runAt?: Date;
  /**
   * Jobs of one tenant sharing a key run one at a time, in the order they were enqueued, a failing
   * one holding back those after it until it succeeds or is dead (webhook order per record).
   */
  key?: string;
  /** The tenant whose job it is, when not the writer's (the file trigger's, system work). */
  tenantId?: string;
  instanceId?: string | null;
}

/**
 * What an area (or a mechanism) does with its rows of a patient in that patient's delete, in the
 * delete's write, before the patient's row goes: what the foreign keys do not do (a row a key
 * cascades goes by itself). Declared on the Area (`patientDeletion`).
 */
export type PatientDeletion = (w: Work, scope: { tenantId: string; instanceId: string }, patientId: string) => Promise<void>;

/** What a store needs to write stamped rows inside a write: its transaction, instant and writer. */
export type Writing = Pick<Work, 'db' | 'now' | 'actor' | 'created' | 'updated'>;
