import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB, NewRow } from '../db/schema.ts';
import { type AuditEntry, auditRow, createdStamp, eventsOfAction, updatedStamp } from '../events/audit.ts';
import { eventRow, type NewEvent } from '../events/outbox.ts';
import type { NewJob, Work } from '../events/work.ts';
import type { TenantContext } from '../http/context.ts';
import { enqueueKeyed, jobRow } from '../jobs/queue.ts';
import { codeOf } from '../jobs/runner.ts';

export interface WriteOptions {
  /** The write's changes are audited but write no events (a chat message sent with `skipEvent`, DECISIONS §9). */
  skipEvent?: boolean;
}

/** The columns the buffered rows fill, in the order the insert names them. */
const columns = {
  audit_events: [
    'tenant_id',
    'id',
    'instance_id',
    'occurred_at',
    'actor_type',
    'actor_id',
    'actor_name',
    'action',
    'entity_type',
    'entity_id',
    'patient_id',
    'request_id',
    'method',
    'route',
    'changed_fields',
  ],
  events: [
    'tenant_id',
    'id',
    'instance_id',
    'event_entity',
    'event_subtype',
    'record_id',
    'patient_id',
    'actor_type',
    'actor_id',
    'request_id',
    'occurred_at',
    'data',
  ],
  jobs: [
    'tenant_id',
    'id',
    'instance_id',
    'kind',
    'payload',
    'state',
    'queue_key',
    'attempts',
    'run_at',
    'created_at',
    'updated_at',
  ],
} as const;

/**
 * Rows of one table from a JSON array in one parameter: the statement's text is the same whatever
 * the number of rows (so it is prepared once), and no write nears the 65,535 parameters a
 * statement may carry.
 */
function insertFromJson(table: keyof typeof columns, rows: object[]): RawBuilder<unknown> {
  const names = sql.join(columns[table].map((name) => sql.ref(name)));
  const json = JSON.stringify(
    rows.map((row) => {
      const { payload, data, ...rest } = row as { payload?: unknown; data?: unknown };
      // jsonb columns are held as JSON text until here; the recordset wants them as JSON values.
      return {
        ...rest,
        ...(payload !== undefined ? { payload: JSON.parse(payload as string) } : {}),
        ...(data !== undefined ? { data: JSON.parse(data as string) } : {}),
      };
    }),
  );
  return sql`INSERT INTO ${sql.table(table)} (${names}) SELECT ${names} FROM jsonb_populate_recordset(NULL::${sql.table(table)}, ${json}::jsonb)`;
}

/** The unit of work behind `write`: what a write buffers, written just before its commit. */
export class UnitOfWork implements Work {
  readonly now: Date;
  db: Kysely<DB>;
  private readonly audits: NewRow<'audit_events'>[] = [];
  private readonly events: NewRow<'events'>[] = [];
  private readonly jobs: NewRow<'jobs'>[] = [];
  private readonly keyed: NewRow<'jobs'>[] = [];
  private readonly callbacks: (() => unknown)[] = [];
  private emitted = false;
  private enqueued = false;
  private sealed = false;

  constructor(
    private readonly ctx: TenantContext,
    private readonly options: WriteOptions,
  ) {
    this.now = ctx.services.clock.now();
    this.db = ctx.db;
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

  /**
   * The buffered audit rows, events and jobs as three CTEs, for a write that is one statement
   * (the patient create): nothing may be buffered after.
   */
  pendingWrites(): RawBuilder<unknown> {
    if (this.keyed.length > 0) throw new Error('keyed jobs take statements of their own: use write()');
    const ctes = sql`
      written_audit AS (${insertFromJson('audit_events', this.audits)}),
      written_events AS (${insertFromJson('events', this.events)}),
      written_jobs AS (${insertFromJson('jobs', this.jobs)})`;
    this.seal();
    return ctes;
  }

  /** Writes what was buffered, in the transaction, just before its commit. */
  async flush(): Promise<void> {
    const buffered = this.audits.length + this.events.length + this.jobs.length;
    const keyed = [...this.keyed];
    if (buffered > 0) await sql`WITH ${this.pendingWrites()} SELECT 1`.execute(this.db);
    else this.seal();
    if (keyed.length > 0) await enqueueKeyed(this.db, keyed);
  }

  /** After the commit: wake this process's job workers for what the write enqueued, then the callbacks. */
  async committed(): Promise<void> {
    const { jobs } = this.ctx.services;
    if (this.emitted) jobs.signal('events');
    if (this.enqueued) jobs.wake();
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
    this.emitted = this.events.length > 0;
    this.enqueued = this.jobs.length + this.keyed.length > 0;
    this.sealed = true;
  }
}
