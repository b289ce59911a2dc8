import { type Kysely, type RawBuilder, sql } from 'kysely';
import { parameterBatches } from '../db/batches.ts';
import type { DB, NewRow } from '../db/schema.ts';
import { accessRow } from '../events/access.ts';
import { type AuditEntry, auditRow, createdStamp, eventsOfAction, updatedStamp } from '../events/audit.ts';
import { eventRow, type NewEvent } from '../events/outbox.ts';
import type { NewJob, Work } from '../events/work.ts';
import { ACCESS_SIGNAL } from '../http/access-log.ts';
import type { TenantContext } from '../http/context.ts';
import { keyRow } from '../http/idempotency-store.ts';
import { EVENTS_SIGNAL } from '../jobs/kinds.ts';
import { enqueueKeyed, jobRow } from '../jobs/queue.ts';
import { codeOf } from '../jobs/runner.ts';

export interface WriteOptions {
  /** The write's changes are audited but write no events (a chat message sent with `skipEvent`, DECISIONS §9). */
  skipEvent?: boolean;
}

/** Rows a write's flush puts into one statement; more (a bulk edit's audit) go in statements of their own. */
const ONE_STATEMENT_ROWS = 500;

/** The unit of work behind `write`: what a write buffers, written just before its commit. */
export class UnitOfWork implements Work {
  readonly now: Date;
  db: Kysely<DB>;
  private readonly audits: NewRow<'audit_events'>[] = [];
  private readonly events: NewRow<'events'>[] = [];
  private readonly jobs: NewRow<'jobs'>[] = [];
  private readonly keyed: NewRow<'jobs'>[] = [];
  private readonly callbacks: (() => unknown)[] = [];
  /** The tenants of what the write committed: events to relay, jobs to take. */
  private emitted = new Set<string>();
  private enqueued = new Set<string>();
  /** The patients this write's access record names (a request's write whose answer shows them). */
  private disclosed: string[] = [];
  private sealed = false;

  /** Made once the write holds its connection `db`, whose instant it takes. */
  constructor(
    private readonly ctx: TenantContext,
    db: Kysely<DB>,
    private readonly options: WriteOptions,
  ) {
    this.now = ctx.services.clock.now();
    this.db = db;
  }

  get actor() {
    return this.ctx.actor;
  }

  created() {
    return createdStamp(this.actor, this.now);
  }

  updated() {
    return updatedStamp(this.actor, this.now);
  }

  changed(entries: AuditEntry | readonly AuditEntry[]): void {
    this.open();
    for (const entry of Array.isArray(entries) ? (entries as readonly AuditEntry[]) : [entries as AuditEntry]) {
      this.audits.push(auditRow(this.actor, entry, this.now));
      for (const subtype of eventsOfAction(entry.action)) {
        this.emit({
          subtype: subtype as NewEvent['subtype'],
          recordId: entry.entityId,
          patientId: entry.patientId ?? null,
          data: { ...entry.about, ...(entry.changedFields ? { changedFields: entry.changedFields } : {}) },
        });
      }
    }
  }

  emit(event: NewEvent): void {
    this.open();
    // The kinds that follow the event run whether or not it is published (skipEvent silences webhooks only).
    for (const kind of this.ctx.services.jobs.following(event.subtype)) {
      const { subtype, recordId, patientId = null, data = {} } = event;
      this.enqueue({ kind, payload: { subtype, recordId, patientId, data } });
    }
    if (this.options.skipEvent) return;
    this.events.push(eventRow(this.actor, event, this.now));
  }

  enqueue(job: NewJob): void {
    this.open();
    const row = jobRow(job, this.actor.tenantId, this.actor.instanceId, this.now);
    (row.queue_key ? this.keyed : this.jobs).push(row);
  }

  afterCommit(callback: () => unknown): void {
    this.callbacks.push(callback);
  }

  /** The request's idempotency key, when this is the request's first write: its row goes in with the write. */
  private get key() {
    const { idempotency } = this.ctx;
    return idempotency && !idempotency.written ? idempotency : undefined;
  }

  /**
   * The access record of the request's answer, when the request discloses (its context says so):
   * the patients this write changed that no earlier write of the request recorded.
   */
  private get access() {
    const { disclosure } = this.ctx;
    if (!disclosure) return undefined;
    const patients = [...new Set(this.audits.map((row) => row.patient_id))].filter(
      (id): id is string => typeof id === 'string' && !disclosure.recorded.has(id),
    );
    return patients.length > 0
      ? { patients, row: accessRow({ ...disclosure.entry, at: this.now, patientIds: patients }) }
      : undefined;
  }

  /**
   * The buffered rows' inserts, a table at a time, in slices under the parameters a statement may
   * carry; the request's idempotency key, so the key and the write commit or roll back together;
   * and the access record of the request's answer, so the write and its record are one round trip.
   */
  private inserts() {
    const { key, access } = this;
    this.disclosed = access?.patients ?? [];
    return [
      ...parameterBatches(this.audits).map((rows) => this.db.insertInto('audit_events').values(rows)),
      ...parameterBatches(this.events).map((rows) => this.db.insertInto('events').values(rows)),
      ...parameterBatches(this.jobs).map((rows) => this.db.insertInto('jobs').values(rows)),
      ...(key ? [keyRow(this.db, key, this.now)] : []),
      ...(access ? [this.db.insertInto('access_log').values(access.row)] : []),
    ];
  }

  /**
   * The buffered audit rows, events and jobs as CTEs (`, written_0 AS (...)` each), for a write that
   * is one statement (the patient create): nothing may be buffered after.
   */
  pendingWrites(): RawBuilder<unknown> {
    if (this.keyed.length > 0) throw new Error('keyed jobs take statements of their own: use write()');
    if (this.audits.length + this.events.length + this.jobs.length > ONE_STATEMENT_ROWS) {
      throw new Error('a write of one statement buffers a few rows, not a bulk edit’s: use write()');
    }
    const ctes = sql.join(
      this.inserts().map((insert, index) => sql`, ${sql.ref(`written_${index}`)} AS (${insert})`),
      sql``,
    );
    this.seal();
    return ctes;
  }

  /** Writes what was buffered, in the transaction, just before its commit: one statement unless a bulk edit's. */
  async flush(): Promise<void> {
    const keyed = [...this.keyed];
    const inserts = this.inserts();
    // A bulk edit's rows go in statements of their own (the key and the access record add one row each at most).
    if (this.audits.length + this.events.length + this.jobs.length > ONE_STATEMENT_ROWS) {
      for (const insert of inserts) await insert.execute();
    } else if (inserts.length > 0) {
      // The first insert is the statement; the others ride on it as CTEs: one round trip.
      const [first, ...rest] = inserts;
      if (rest.length === 0) await first!.execute();
      else {
        const ctes = sql.join(rest.map((insert, index) => sql`${sql.ref(`written_${index}`)} AS (${insert})`));
        await sql`WITH ${ctes} ${first!}`.execute(this.db);
      }
    }
    this.seal();
    if (keyed.length > 0) await enqueueKeyed(this.db, keyed);
  }

  /**
   * After the commit: the key is written, the job workers wake for the tenants of what the write
   * emitted and enqueued (here, or on other nodes through a notification: jobs/runner.ts), then the callbacks.
   */
  async committed(): Promise<void> {
    const { key } = this;
    if (key) key.written = true;
    const { jobs } = this.ctx.services;
    if (this.disclosed.length > 0) {
      for (const patient of this.disclosed) this.ctx.disclosure?.recorded.add(patient);
      jobs.signal(ACCESS_SIGNAL);
    }
    if (this.emitted.size > 0) jobs.signal(EVENTS_SIGNAL, this.emitted);
    if (this.enqueued.size > 0) jobs.wake(this.enqueued);
    for (const callback of this.callbacks) {
      try {
        await callback();
      } catch (error) {
        this.ctx.log.warn({ code: codeOf(error) }, 'after-commit work failed');
      }
    }
  }

  private open(): void {
    if (this.sealed) throw new Error('the write was already written: nothing can be added to it');
  }

  private seal(): void {
    this.emitted = new Set(this.events.map((row) => row.tenant_id));
    this.enqueued = new Set([...this.jobs, ...this.keyed].map((row) => row.tenant_id));
    this.sealed = true;
  }
}
