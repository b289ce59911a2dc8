import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { DatabaseKind } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { type ClaimedJob, JobDeferred, type JobKind, retryDelay } from './kinds.ts';
import {
  buryJob,
  claimJobs,
  completeJob,
  deferJob,
  ensurePeriodicJobs,
  type JobRow,
  PLATFORM_TENANT,
  renewLeases,
  rescheduleJob,
  retryJob,
} from './queue.ts';
import type { JobSettings } from './settings.ts';

interface Log {
  warn(object: object, message: string): void;
}

/** How a run of a job ended: done, failed (to be retried or run again), buried, or its end not written. */
export type JobOutcome = 'succeeded' | 'failed' | 'deferred' | 'buried' | 'unrecorded';

export interface RunnerOptions<Env> {
  db: Kysely<DB>;
  /** The engine: on Citus jobs are taken a tenant at a time (queue.ts). */
  engine: DatabaseKind;
  clock: { now(): Date };
  kinds: ReadonlyMap<string, JobKind<Env>>;
  /** What each run is given (the app's services). */
  env: Env;
  settings: JobSettings;
  log: Log;
}

/**
 * Runs jobs on this process: every node that serves with workers on takes due jobs from the one
 * queue in the database, up to `concurrency` at a time, every `pollMs` and at once when a write
 * here enqueued work (`wake`). Nothing it holds outlives the process: a job it was running when it
 * died runs again elsewhere once its lease ends.
 */
export class JobRunner<Env> {
  readonly worker = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private renewer: NodeJS.Timeout | undefined;
  /** The jobs running here, whose leases this process renews while it lives. */
  private readonly held = new Map<string, JobRow>();
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  /** The last look found jobs (or had no room): while work flows, a job's end is the moment to look again. */
  private flowing = false;
  private readonly running = new Set<Promise<unknown>>();
  private readonly local = new Map<string, { run: Promise<number>; again: boolean }>();
  /** Kinds signalled and waiting out their wake window. */
  private readonly signalled = new Set<string>();

  /** How this process's runs ended, by kind and outcome (the metrics' cairn_jobs_total). */
  readonly ended = new Map<string, Map<JobOutcome, number>>();

  /** The kinds that follow each event subtype (JobKind.after). */
  private readonly followers = new Map<string, string[]>();

  constructor(private readonly options: RunnerOptions<Env>) {
    for (const [name, kind] of options.kinds) {
      for (const subtype of kind.after ?? []) this.followers.set(subtype, [...(this.followers.get(subtype) ?? []), name]);
    }
  }

  get kinds(): ReadonlyMap<string, JobKind<Env>> {
    return this.options.kinds;
  }

  /** The job kinds a write emitting `subtype` enqueues with it. */
  following(subtype: string): readonly string[] {
    return this.followers.get(subtype) ?? [];
  }

  /** Starts taking jobs (`cairn serve` with CAIRN_JOB_WORKERS above 0). */
  async start(): Promise<void> {
    if (this.started || this.options.settings.concurrency === 0) return;
    await ensurePeriodicJobs(this.options.db, this.periodicKinds(), this.options.clock.now());
    this.started = true;
    this.timer = setInterval(() => this.pollSoon(), this.options.settings.pollMs).unref();
    this.renewer = setInterval(() => {
      this.renewLeases().catch((error: Error) => this.options.log.warn({ code: codeOf(error) }, 'job lease renewal failed'));
    }, this.options.settings.leaseMs / 3).unref();
    this.pollSoon();
  }

  /** Takes no more jobs, and waits for those running to end. */
  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.timer);
    clearInterval(this.renewer);
    await this.polling;
    await Promise.allSettled([...this.running, ...[...this.local.values()].map((entry) => entry.run)]);
  }

  /**
   * Renews the leases of the jobs running here: every third of a lease while the workers run (a
   * test calls it rather than wait). Only a dead process's jobs are taken again.
   */
  async renewLeases(): Promise<void> {
    const now = this.options.clock.now();
    await renewLeases(
      this.options.db,
      [...this.held.values()],
      this.worker,
      new Date(now.getTime() + this.options.settings.leaseMs),
    );
  }

  /** A write on this process enqueued jobs: look for due jobs now rather than at the next poll. */
  wake(): void {
    this.pollSoon();
  }

  /**
   * A write on this process committed something the periodic kinds that wake on `name` act on
   * (`events`): run them here soon, once for all the signals of their wake window.
   */
  signal(name: string): void {
    if (!this.started) return;
    for (const kind of this.wakeKinds(name)) {
      if (this.signalled.has(kind)) continue;
      this.signalled.add(kind);
      const run = () => {
        this.signalled.delete(kind);
        this.track(this.runLocally(kind));
      };
      const delay = this.kinds.get(kind)!.wakeAfterMs ?? 0;
      if (delay > 0) setTimeout(run, delay).unref();
      else run();
    }
  }

  /**
   * Runs everything due now, and what that work makes due, until nothing is left (the tests' way
   * to await background work). Answers how much was done. `tenants` keeps it to their jobs, the
   * periodic kinds run here for them alone: test processes share one database, each with its own
   * files and settings, and must not run each other's work. `kinds` keeps it to those kinds (a
   * test that must not relay, and so consume, the events it reads).
   */
  async drain(only: { tenants?: readonly string[]; kinds?: readonly string[] } = {}): Promise<number> {
    const { db, clock } = this.options;
    await ensurePeriodicJobs(db, this.periodicKinds(), clock.now());
    const wanted = (name: string) => !only.kinds || only.kinds.includes(name);
    let total = 0;
    for (let round = 0; round < 10_000; round++) {
      let done = 0;
      for (const name of this.wakeKinds().filter(wanted)) done += await this.runLocally(name, only.tenants);
      const jobs = await this.claim(Math.max(this.options.settings.concurrency, 4), only.tenants, only.kinds);
      done += (await Promise.all(jobs.map((job) => this.execute(job)))).reduce((sum, count) => sum + count, 0);
      total += done;
      if (done === 0) return total;
    }
    throw new Error('drain: jobs keep making jobs after 10,000 rounds');
  }

  private periodicKinds(): string[] {
    return [...this.kinds].filter(([, kind]) => kind.everyMs !== undefined).map(([name]) => name);
  }

  private wakeKinds(signal?: string): string[] {
    return [...this.kinds]
      .filter(([, kind]) => kind.wakeOn !== undefined && (signal === undefined || kind.wakeOn === signal))
      .map(([name]) => name);
  }

  private track(promise: Promise<unknown>): void {
    this.running.add(promise);
    promise.finally(() => {
      this.running.delete(promise);
      // While work flows, look again once half the slots are free: claims take several jobs at a time.
      if (this.flowing && this.running.size <= this.options.settings.concurrency / 2) this.pollSoon();
    });
  }

  private pollSoon(): void {
    if (!this.started) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = this.poll()
      .catch((error: Error) => this.options.log.warn({ code: codeOf(error) }, 'job poll failed'))
      .finally(() => {
        this.polling = undefined;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.pollSoon();
        }
      });
  }

  private async poll(): Promise<void> {
    const free = this.options.settings.concurrency - this.running.size;
    if (free <= 0) {
      this.flowing = true;
      return;
    }
    const jobs = await this.claim(free);
    this.flowing = jobs.length > 0;
    for (const job of jobs) this.track(this.execute(job));
  }

  private claim(limit: number, tenants?: readonly string[], kinds?: readonly string[]): Promise<JobRow[]> {
    const now = this.options.clock.now();
    return claimJobs(this.options.db, {
      kinds: kinds ? [...kinds] : [...this.kinds.keys()],
      limit,
      now,
      leaseUntil: new Date(now.getTime() + this.options.settings.leaseMs),
      worker: this.worker,
      engine: this.options.engine,
      ...(tenants ? { tenants } : {}),
    });
  }

  /**
   * A periodic kind run here and now, outside its row (it is safe to run anywhere at any time). One
   * local run at a time; a wake during a run makes it run once more after, so nothing is missed.
   */
  private runLocally(name: string, tenants?: readonly string[]): Promise<number> {
    const current = this.local.get(name);
    if (current) {
      current.again = true;
      return current.run;
    }
    const entry = { run: Promise.resolve(0), again: false };
    entry.run = (async () => {
      let done = 0;
      try {
        do {
          entry.again = false;
          done += await this.perform(name, localJob(name, tenants));
        } while (entry.again);
      } catch (error) {
        this.options.log.warn({ kind: name, code: codeOf(error) }, 'job failed');
      } finally {
        this.local.delete(name);
      }
      return done;
    })();
    this.local.set(name, entry);
    return entry.run;
  }

  private count(kind: string, outcome: JobOutcome): void {
    const byOutcome = this.ended.get(kind) ?? new Map<JobOutcome, number>();
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    this.ended.set(kind, byOutcome);
  }

  private async perform(name: string, job: ClaimedJob): Promise<number> {
    const done = await this.kinds.get(name)!.run(job, this.options.env);
    return typeof done === 'number' ? done : 0;
  }

  /** Runs a taken job and records how it ended; answers the work done (at least 1: the job itself). */
  private async execute(row: JobRow): Promise<number> {
    const { db, clock, log } = this.options;
    const kind = this.kinds.get(row.kind)!;
    const held = `${row.tenant_id}/${row.id}`;
    this.held.set(held, row);
    try {
      // A job whose runs keep dying with their process (its lease ran out each time) stops too.
      if (!kind.everyMs && row.attempts > kind.maxAttempts) {
        await buryJob(db, row, 'ATTEMPTS_EXHAUSTED', clock.now());
        this.count(row.kind, 'buried');
        return 1;
      }
      let done: number;
      try {
        done = await this.perform(row.kind, claimed(row));
      } catch (error) {
        if (error instanceof JobDeferred) {
          await deferJob(db, row, error.until, clock.now());
          this.count(row.kind, 'deferred');
          return 1;
        }
        const code = codeOf(error);
        log.warn({ kind: row.kind, job: row.id, attempt: row.attempts, code }, 'job failed');
        const now = clock.now();
        if (kind.everyMs) {
          const wait = Math.max(kind.everyMs, retryDelay(kind, row.attempts));
          await rescheduleJob(db, row, new Date(now.getTime() + wait), code, now);
        } else if (row.attempts >= kind.maxAttempts) {
          await buryJob(db, row, code, now);
          this.count(row.kind, 'buried');
          return 1;
        } else {
          await retryJob(db, row, new Date(now.getTime() + retryDelay(kind, row.attempts)), code, now);
        }
        this.count(row.kind, 'failed');
        return 1;
      }
      const now = clock.now();
      if (kind.everyMs) await rescheduleJob(db, row, new Date(now.getTime() + kind.everyMs), null, now);
      else await completeJob(db, row, now);
      this.count(row.kind, 'succeeded');
      return done + 1;
    } catch (error) {
      // The database failed us: the lease runs out, and the job runs again.
      log.warn({ kind: row.kind, job: row.id, code: codeOf(error) }, 'job outcome not recorded');
      this.count(row.kind, 'unrecorded');
      return 1;
    } finally {
      this.held.delete(held);
    }
  }
}

function claimed(row: JobRow): ClaimedJob {
  return {
    tenantId: row.tenant_id,
    id: row.id,
    instanceId: row.instance_id,
    kind: row.kind,
    payload: row.payload as Record<string, unknown>,
    attempt: row.attempts,
    key: row.queue_key,
  };
}

/** A periodic kind's run outside its row; `tenants`, when given, are the only ones it may work for. */
function localJob(kind: string, tenants?: readonly string[]): ClaimedJob {
  return {
    tenantId: PLATFORM_TENANT,
    id: 'local',
    instanceId: null,
    kind,
    payload: tenants ? { tenants } : {},
    attempt: 1,
    key: null,
  };
}

/** What a failure is called in logs and on the job: its code or class, never its message (which may hold PHI). */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown; errorCode?: unknown }).errorCode ?? (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') return String(code);
  return error instanceof Error ? error.name : 'ERROR';
}
