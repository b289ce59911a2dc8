import { type Kysely, sql } from 'kysely';
import { parameterBatches } from '../db/batches.ts';
import { crossTenant } from '../db/cross-tenant.ts';
import type { DatabaseKind } from '../db/database.ts';
import { uuidv7 } from '../db/ids.ts';
import type { DB, NewRow, Row } from '../db/schema.ts';
import type { NewJob } from '../events/work.ts';
import type { JobState } from './tables.ts';

/**
 * The job queue's SQL: enqueue (inside a write's transaction), take due jobs (`FOR UPDATE SKIP
 * LOCKED`, so workers on any node never take the same job), finish, retry, bury and requeue.
 *
 * Jobs sharing a key run one at a time in enqueue order: only the first live job of a key is
 * QUEUED, the others WAITING; when it succeeds or dies, the next is promoted. Enqueueing a keyed
 * job locks the key's live jobs FOR SHARE, and ending one deletes or updates its row, then
 * promotes with a fresh snapshot (cairn_end_job), so whichever of the two goes second sees what
 * the other did.
 */

export type JobRow = Row<'jobs'>;

/** The tenant of the platform's own periodic work. */
export const PLATFORM_TENANT = '00000000-0000-0000-0000-000000000000';

const live: JobState[] = ['QUEUED', 'RUNNING', 'WAITING'];

export function jobRow(job: NewJob, tenantId: string, instanceId: string | null, at: Date): NewRow<'jobs'> {
  return {
    tenant_id: job.tenantId ?? tenantId,
    id: uuidv7(),
    instance_id: job.instanceId === undefined ? instanceId : job.instanceId,
    kind: job.kind,
    payload: JSON.stringify(job.payload ?? {}),
    state: 'QUEUED',
    queue_key: job.key ?? null,
    dedupe_key: null,
    attempts: 0,
    run_at: job.runAt ?? null,
    locked_by: null,
    last_error: null,
    created_at: at,
    updated_at: at,
  };
}

/** Keyed jobs, each WAITING when an earlier live job of its key exists (or comes before it here). */
export async function enqueueKeyed(db: Kysely<DB>, rows: NewRow<'jobs'>[]): Promise<void> {
  const byTenant = new Map<string, NewRow<'jobs'>[]>();
  for (const row of rows) byTenant.set(row.tenant_id, [...(byTenant.get(row.tenant_id) ?? []), row]);
  for (const [tenantId, jobs] of byTenant) {
    const keys = [...new Set(jobs.map((job) => job.queue_key!))];
    const busy = new Set<string | null | undefined>();
    for (const batch of parameterBatches(keys.map((key) => ({ key })))) {
      const found = await db
        .selectFrom('jobs')
        .select('queue_key')
        .where('tenant_id', '=', tenantId)
        .where(
          'queue_key',
          'in',
          batch.map((entry) => entry.key),
        )
        .where('state', 'in', live)
        .forShare()
        .execute();
      for (const row of found) busy.add(row.queue_key);
    }
    const placed = jobs.map((job) => {
      const state: JobState = busy.has(job.queue_key) ? 'WAITING' : 'QUEUED';
      busy.add(job.queue_key);
      return { ...job, state };
    });
    for (const batch of parameterBatches(placed)) await db.insertInto('jobs').values(batch).execute();
  }
}

export interface ClaimOptions {
  kinds: readonly string[];
  limit: number;
  now: Date;
  /** Until when the taken jobs are this worker's; after it another may take them (a worker died). */
  leaseUntil: Date;
  worker: string;
  /** Only these tenants' jobs (a drain that must not take other processes' work: tests sharing a database). */
  tenants?: readonly string[];
  /** On Citus the jobs are taken a tenant at a time (below). */
  engine: DatabaseKind;
}

/**
 * Takes up to `limit` due jobs, oldest first, skipping those another worker holds. Given
 * `tenants`, each tenant's are taken by a statement pinned to it (on Citus a router plan: a wake-up
 * for a tenant touches its worker alone). Otherwise, on PostgreSQL and PGlite one statement takes
 * them across tenants; Citus refuses `FOR UPDATE` over many shards, so there the tenants with due
 * jobs are read first (`dueWork`, a cross-tenant read), then each tenant's jobs are taken pinned.
 */
export async function claimJobs(db: Kysely<DB>, options: ClaimOptions): Promise<JobRow[]> {
  if (options.kinds.length === 0 || options.limit <= 0) return [];
  const tenants =
    options.tenants ??
    (options.engine === 'citus' ? (await dueWork(db, options)).filter((due) => due.jobs).map((due) => due.tenantId) : undefined);
  if (!tenants) return claim(db, options);
  const taken: JobRow[] = [];
  for (const tenant of tenants) {
    if (taken.length >= options.limit) break;
    taken.push(...(await claim(db, { ...options, limit: options.limit - taken.length }, tenant)));
  }
  return taken;
}

function claim(db: Kysely<DB>, options: ClaimOptions, tenantId?: string): Promise<JobRow[]> {
  // The due jobs are picked once, in a materialized CTE: as an `IN (subquery)` the planner may
  // rescan the locking subquery per row of a nested-loop semi-join, each rescan skipping the rows
  // this statement just took, so a claim of 1 took 2 or 12 (a runner past its bound).
  const pinned = tenantId === undefined ? sql`` : sql`AND jobs.tenant_id = ${tenantId}`;
  return sql<JobRow>`
    WITH picked AS MATERIALIZED (
      SELECT tenant_id, id FROM jobs
      WHERE state IN ('QUEUED', 'RUNNING')
        AND coalesce(run_at, '-infinity'::timestamptz) <= ${options.now}
        AND kind = ANY(${options.kinds as string[]})
        ${pinned}
      ORDER BY coalesce(run_at, '-infinity'::timestamptz), seq
      LIMIT ${options.limit}
      FOR UPDATE SKIP LOCKED)
    UPDATE jobs SET state = 'RUNNING', attempts = jobs.attempts + 1, run_at = ${options.leaseUntil},
      locked_by = ${options.worker}, updated_at = ${options.now}
    FROM picked
    WHERE jobs.tenant_id = picked.tenant_id AND jobs.id = picked.id
      ${pinned}
    RETURNING jobs.*`
    .execute(db)
    .then(({ rows }) => rows);
}

/** A tenant the sweep found work for: jobs of the kinds due, events waiting in the outbox, or both. */
export interface DueTenant {
  tenantId: string;
  jobs: boolean;
  events: boolean;
}

/**
 * The job workers' sweep: the tenants with due jobs of these kinds or events waiting, those due
 * longest first, in one statement (on Citus a read of every shard, or of the shards of `tenants`
 * when given: a sweep that cannot reach a worker asks the others for their tenants alone).
 */
export async function dueWork(
  db: Kysely<DB>,
  options: Pick<ClaimOptions, 'kinds' | 'now' | 'limit' | 'tenants'>,
): Promise<DueTenant[]> {
  const only = options.tenants ? sql`AND tenant_id = ANY(${[...options.tenants]}::uuid[])` : sql``;
  const { rows } = await sql<{ tenant_id: string; jobs: boolean; events: boolean }>`${sql.raw(crossTenant('due-tenants'))}
    SELECT tenant_id, bool_or(job) AS jobs, bool_or(NOT job) AS events FROM (
      SELECT tenant_id, coalesce(run_at, '-infinity'::timestamptz) AS due, true AS job FROM jobs
      WHERE state IN ('QUEUED', 'RUNNING')
        AND coalesce(run_at, '-infinity'::timestamptz) <= ${options.now}
        AND kind = ANY(${options.kinds as string[]})
        ${only}
      UNION ALL
      SELECT DISTINCT tenant_id, '-infinity'::timestamptz, false FROM events WHERE true ${only}
    ) AS due
    GROUP BY tenant_id
    ORDER BY min(due)
    LIMIT ${options.limit}`.execute(db);
  return rows.map((row) => ({ tenantId: row.tenant_id, jobs: row.jobs, events: row.events }));
}

/**
 * The jobs a worker is running stay its own until `leaseUntil`: renewed while they run, so a run
 * longer than a lease (a slow receiver, an export) is not taken for dead and run twice. One
 * statement per tenant, each pinned to it.
 */
export async function renewLeases(db: Kysely<DB>, jobs: readonly JobRow[], worker: string, leaseUntil: Date): Promise<void> {
  const byTenant = new Map<string, string[]>();
  for (const job of jobs) byTenant.set(job.tenant_id, [...(byTenant.get(job.tenant_id) ?? []), job.id]);
  for (const [tenantId, ids] of byTenant) {
    await sql`UPDATE jobs SET run_at = ${leaseUntil}
      WHERE tenant_id = ${tenantId} AND id = ANY(${ids}::uuid[]) AND state = 'RUNNING' AND locked_by = ${worker}`.execute(db);
  }
}

/** The job is still the one this worker took (its lease did not run out and pass to another). */
function taken(db: Kysely<DB>, job: JobRow) {
  return db
    .updateTable('jobs')
    .where('tenant_id', '=', job.tenant_id)
    .where('id', '=', job.id)
    .where('locked_by', '=', job.locked_by)
    .where('attempts', '=', job.attempts);
}

/** The job succeeded: it goes, and the next of its key may run (one call: migration 0027). */
export async function completeJob(db: Kysely<DB>, job: JobRow, now: Date): Promise<void> {
  await endJob({ tenantId: job.tenant_id, id: job.id, attempt: job.attempts }, now).execute(db);
}

/** The job failed with attempts left: it runs again at `runAt`, still holding back its key. */
export async function retryJob(db: Kysely<DB>, job: JobRow, runAt: Date, error: string, now: Date): Promise<void> {
  await taken(db, job).set({ state: 'QUEUED', run_at: runAt, locked_by: null, last_error: error, updated_at: now }).execute();
}

/** The job waits for something outside it (JobDeferred): it runs again at `runAt`, this attempt not counted. */
export async function deferJob(db: Kysely<DB>, job: JobRow, runAt: Date, now: Date): Promise<void> {
  await taken(db, job)
    .set({ state: 'QUEUED', run_at: runAt, locked_by: null, attempts: job.attempts - 1, updated_at: now })
    .execute();
}

/** Periodic work is never dead: it runs again at `runAt`, its attempts counted afresh. */
export async function rescheduleJob(db: Kysely<DB>, job: JobRow, runAt: Date, error: string | null, now: Date): Promise<void> {
  await taken(db, job)
    .set({ state: 'QUEUED', run_at: runAt, locked_by: null, attempts: 0, last_error: error, updated_at: now })
    .execute();
}

/** Out of attempts: DEAD, kept for an administrator; the next of its key may run. */
export async function buryJob(db: Kysely<DB>, job: JobRow, error: string, now: Date): Promise<void> {
  await endJob({ tenantId: job.tenant_id, id: job.id, attempt: job.attempts }, now, error).execute(db);
}

/**
 * The statement that ends a job: it goes (succeeded), or turns DEAD with `deadError`, and the next
 * of its key is promoted, in one call of `cairn_end_job` (migration 0027). Guarded by the attempt:
 * a job whose lease passed to another worker is not touched.
 */
function endJob(job: { tenantId: string; id: string; attempt: number }, now: Date, deadError: string | null = null) {
  return sql`SELECT cairn_end_job(${job.tenantId}::uuid, ${job.id}::uuid, ${job.attempt}::int, ${deadError}::text, ${now}::timestamptz)`;
}

/**
 * An administrator's requeue of a DEAD job: it runs again with its attempts counted afresh, at
 * once, or after the live job of its key. Answers the job, or undefined when it is not DEAD. Run
 * it in a write's transaction.
 */
export async function requeueJob(trx: Kysely<DB>, tenantId: string, id: string, now: Date): Promise<JobRow | undefined> {
  const job = await trx
    .selectFrom('jobs')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('state', '=', 'DEAD')
    .forUpdate()
    .executeTakeFirst();
  if (!job) return undefined;
  let state: JobState = 'QUEUED';
  if (job.queue_key) {
    const busy = await trx
      .selectFrom('jobs')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('queue_key', '=', job.queue_key)
      .where('state', 'in', live)
      .forShare()
      .execute();
    if (busy.length > 0) state = 'WAITING';
  }
  return trx
    .updateTable('jobs')
    .set({ state, attempts: 0, run_at: null, locked_by: null, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A tenant's DEAD jobs of `kind` whose payload holds `payload` go: their work is redone by a new job. */
export async function forgetDeadJobs(
  db: Kysely<DB>,
  tenantId: string,
  kind: string,
  payload: Record<string, unknown>,
): Promise<void> {
  await db
    .deleteFrom('jobs')
    .where('tenant_id', '=', tenantId)
    .where('state', '=', 'DEAD')
    .where('kind', '=', kind)
    .where(sql<boolean>`payload @> ${JSON.stringify(payload)}::jsonb`)
    .execute();
}

/**
 * Makes a job waiting out its backoff due now (QUEUED with a later run_at), for a person asking
 * for the work again; answers whether there was one. A job running, or WAITING behind its key's
 * earlier work, keeps its place.
 */
export async function hurryJob(
  db: Kysely<DB>,
  tenantId: string,
  kind: string,
  payload: Record<string, unknown>,
  now: Date,
): Promise<boolean> {
  const hurried = await db
    .updateTable('jobs')
    .set({ run_at: null, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('state', '=', 'QUEUED')
    .where('kind', '=', kind)
    .where(sql<boolean>`payload @> ${JSON.stringify(payload)}::jsonb`)
    .returning('id')
    .execute();
  return hurried.length > 0;
}

export interface JobFilter {
  state?: JobState;
  kind?: string;
}

/** A tenant's jobs (the administrators' list). */
export async function listJobs(
  db: Kysely<DB>,
  tenantId: string,
  filter: JobFilter,
  paging: { page: number; size: number },
  /** By enqueue order: newest first unless `asc`. */
  direction: 'asc' | 'desc' = 'desc',
): Promise<{ rows: JobRow[]; total: number }> {
  let base = db.selectFrom('jobs').where('tenant_id', '=', tenantId);
  if (filter.state) base = base.where('state', '=', filter.state);
  if (filter.kind) base = base.where('kind', '=', filter.kind);
  const [rows, count] = await Promise.all([
    base
      .selectAll()
      .orderBy('seq', direction)
      .limit(paging.size)
      .offset(paging.page * paging.size)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

export function findJob(db: Kysely<DB>, tenantId: string, id: string): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
}

/** One row per periodic kind, made by the first node that starts; due at once. */
export async function ensurePeriodicJobs(db: Kysely<DB>, kinds: readonly string[], now: Date): Promise<void> {
  if (kinds.length === 0) return;
  await db
    .insertInto('jobs')
    .values(
      kinds.map((kind) => ({
        ...jobRow({ kind, tenantId: PLATFORM_TENANT }, PLATFORM_TENANT, null, now),
        dedupe_key: 'periodic',
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['tenant_id', 'kind', 'dedupe_key']).where('dedupe_key', 'is not', null).doNothing(),
    )
    .execute();
}

/**
 * A purged patient's jobs go, whatever their state: their payload or their key names the patient
 * (a job that follows an event carries its patient; a webhook delivery is keyed by its record),
 * and their work is about data the purge removes. Each ends as a job does (`cairn_end_job`), so
 * the next of its key still runs. The kinds `except` stay: a blob's removal is the purge's own work.
 */
export async function forgetJobsNaming(
  db: Kysely<DB>,
  tenantId: string,
  patientId: string,
  except: readonly string[],
  now: Date,
): Promise<void> {
  const jobs = await db
    .selectFrom('jobs')
    .select(['id', 'attempts'])
    .where('tenant_id', '=', tenantId)
    .where('kind', 'not in', except)
    .where(sql<boolean>`(strpos(payload::text, ${patientId}) > 0 OR strpos(coalesce(queue_key, ''), ${patientId}) > 0)`)
    .orderBy('seq')
    .execute();
  for (const job of jobs) await endJob({ tenantId, id: job.id, attempt: job.attempts }, now).execute(db);
}
