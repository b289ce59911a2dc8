import type { Kysely, RawBuilder, SqlBool } from 'kysely';
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

/** Where a patient lives: their tenant and instance. */
export type PatientScope = { tenantId: string; instanceId: string };

/** The patient a purge removes, as read before anything went. */
export interface PurgedPatient {
  id: string;
  /** Their phone numbers and email addresses, and their contacts': what finds their messages elsewhere (the sandbox). */
  addresses: readonly string[];
}

/** What a purge keeps of a patient, and why: listed in its answer (docs/patient-purge.md). */
export interface KeptRecords {
  /** What is kept, in the API's words (`INVOICE`, `AUDIT_EVENT`). */
  resource: string;
  reason: string;
  count: number;
  /** Their ids, for records one reads by id (an invoice); absent for a log's rows. */
  ids?: string[];
}

/**
 * What an area (or a mechanism) does with its rows of a patient, declared on its Area
 * (`patientData`): one declaration serves the patient's delete and their purge, and names the
 * tables it covers, so a table holding patients' rows that no area names fails a test
 * (src/modules/patients/purge/every-area.test.ts).
 */
export interface PatientData {
  /** Its tables holding patients' rows (a `patient_id` or `patient_ids` column), cascaded or not. */
  tables: readonly string[];
  /**
   * Its tables naming patients otherwise (a calendar participant's id, a job's payload, a
   * delivery's body, a message's address), by table: what names them, and the record the row is
   * part of when that record outlives the purge (its free text then cleared by a `texts`).
   */
  mentions?: Readonly<Record<string, PatientMention>>;
  /**
   * Its records naming a patient that outlive the patient's purge (a calendar event shared with the
   * care team): the free text the purge clears in them, before any area's `purge` runs.
   */
  texts?: readonly PatientTexts[];
  /**
   * In the delete and the purge, in their write, before the patient's row goes: what the foreign
   * keys do not do (a row a key cascades goes by itself).
   */
  remove?: (w: Work, scope: PatientScope, patientId: string) => Promise<void>;
  /** In the purge, in place of `remove`: what the patient's erasure removes beyond the delete. */
  purge?: (w: Work, scope: PatientScope, patient: PurgedPatient) => Promise<void>;
  /** What a purge leaves of the patient, and why (the law keeps it): answered before and after the purge. */
  kept?: (db: Kysely<DB>, scope: PatientScope, patientId: string) => Promise<KeptRecords | undefined>;
  /** The patient's phone numbers and email addresses it holds, read before the purge removes anything. */
  addresses?: (db: Kysely<DB>, scope: PatientScope, patientId: string) => Promise<string[]>;
}

/** How a table names patients other than by `patient_id`, and what of its record outlives their purge. */
export interface PatientMention {
  /** The column, or the text, naming them (`participant_id`, `payload`). */
  by: string;
  /**
   * The table of the record a row is part of, when the purge leaves that record (`calendar_events`:
   * the participant goes, the event stays); some area's `texts` must then clear its free text.
   * Absent when the purge removes the rows naming the patient and nothing else of theirs is left.
   */
  record?: string;
}

/** What a purge writes in place of a free text that named the patient. */
export const PURGED_TEXT = '[removed]';

/**
 * Records of a table that name a patient and outlive their purge, and what the purge clears in
 * them. Every text column of the table (text, JSON, text arrays) is either `cleared` or `other`:
 * src/modules/patients/purge/every-area.test.ts fails on one neither names.
 */
export interface PatientTexts {
  table: string;
  /** Its rows naming the patient: a condition on the table (named by its name), reading the tenant's rows only. */
  naming: (scope: PatientScope, patientId: string) => RawBuilder<SqlBool>;
  /** Its free-text columns, each with what it becomes where set: PURGED_TEXT, or null (a client's structured data). */
  cleared: Readonly<Record<string, string | null>>;
  /** Its other text columns, which hold nothing written about a patient (codes, time zones, outside ids, the staff's names). */
  other: readonly string[];
  /** Its update stamp (updated_at, _by, _by_name) moves to the purge, so readers by update time fetch it again. */
  stamped?: boolean;
}

/** What a store needs to write stamped rows inside a write: its transaction, instant and writer. */
export type Writing = Pick<Work, 'db' | 'now' | 'actor' | 'created' | 'updated'>;
