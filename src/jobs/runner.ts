import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { type Kysely, sql } from 'kysely';
import type { DatabaseKind, Listen } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import { type ClaimedJob, EVENTS_SIGNAL, JobDeferred, type JobKind, retryDelay } from './kinds.ts';
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
import { recordingWindow, recordOutcome } from './recording.ts';
import type { JobSettings } from './settings.ts';
import { TenantSweep } from './sweep.ts';
import { channelOf, readWakeup, WakeupSender } from './wakeups.ts';

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
  /** PostgreSQL and Citus: hears other processes' wake-ups (none on PGlite, one process). */
  listen?: Listen;
}

/** While sweeps find work, the next comes a second later (at most; CAIRN_JOB_SWEEP_SECONDS when idle). */
const BUSY_SWEEP_MS = 1_000;
/** Tenants one sweep reads. */
const SWEEP_TENANTS = 1_000;

/** The tenants a local run is for, gathered while it waits or runs: some, or all of them. */
type Scope = Set<string> | 'all';

function widen(scope: Scope | undefined, tenants: Iterable<string> | undefined): Scope {
  if (tenants === undefined || scope === 'all') return 'all';
  return new Set([...(scope ?? []), ...tenants]);
}

/**
 * Runs jobs on this process: every node that serves with workers on takes due jobs from the one
 * queue in the database, up to `concurrency` at a time. Work a write enqueues wakes the workers
 * for its tenant: here, or (when this process takes none, or has no room) on the other nodes
 * through a notification naming the tenant (wakeups.ts); either way the tenant's jobs are taken by
 * statements pinned to it. A sweep across tenants (sweep.ts) finds scheduled work and what a
 * wake-up missed, every second while it finds some and every CAIRN_JOB_SWEEP_SECONDS otherwise,
 * about once a period for the whole cluster (a node that hears another's sweep puts its own off).
 * Nothing it holds outlives the process: a job it was running when it died runs again elsewhere
 * once its lease ends.
 */
export class JobRunner<Env> {
  readonly worker = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private started = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private renewer: NodeJS.Timeout | undefined;
  /** The jobs running here, whose leases this process renews while it lives. */
  private readonly held = new Map<string, JobRow>();
  /** Tenants whose due jobs this process takes as soon as it has room. */
  private readonly wanted = new Set<string>();
  private claiming: Promise<void> | undefined;
  private claimAgain = false;
  private sweeping: Promise<void> | undefined;
  private periodicEnsured = false;
  private readonly running = new Set<Promise<unknown>>();
  private readonly local = new Map<string, { run: Promise<number>; next: Scope | undefined }>();
  /** Kinds signalled and waiting out their wake window, with the tenants signalled meanwhile. */
  private readonly signalled = new Map<string, Scope>();
  private readonly sweeper: TenantSweep;
  private readonly sender: WakeupSender | undefined;
  private listener: { close(): Promise<void> } | undefined;
  private channel: Promise<string> | undefined;

  /** How this process's runs ended, by kind and outcome (the metrics' cairn_jobs_total). */
  readonly ended = new Map<string, Map<JobOutcome, number>>();

  /** The kinds that follow each event subtype (JobKind.after). */
  private readonly followers = new Map<string, string[]>();

  constructor(private readonly options: RunnerOptions<Env>) {
    for (const [name, kind] of options.kinds) {
      for (const subtype of kind.after ?? []) this.followers.set(subtype, [...(this.followers.get(subtype) ?? []), name]);
    }
    this.sweeper = new TenantSweep(options.db, options.engine, options.log);
    // Notifications go to the coordinator on their own statement: folded into a distributed one,
    // Citus could run them on a worker, where nobody listens.
    if (options.engine !== 'pglite') {
      this.sender = new WakeupSender(this.worker, async (payload) => {
        try {
          await sql`SELECT pg_notify(${await this.channelName()}, ${payload})`.execute(options.db);
        } catch (error) {
          options.log.warn({ code: codeOf(error) }, 'job wake-up not sent');
          throw error;
        }
      });
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
    this.started = true;
    this.renewer = setInterval(() => {
      this.renewLeases().catch((error: Error) => this.options.log.warn({ code: codeOf(error) }, 'job lease renewal failed'));
    }, this.options.settings.leaseMs / 3).unref();
    const { listen } = this.options;
    if (listen && this.sender) {
      // Once listening (again), a sweep finds what was sent while nobody heard.
      this.listener = listen(
        await this.channelName(),
        (payload) => this.heard(payload),
        () => this.sweepIn(0),
      );
    }
    this.sweepIn(0);
  }

  /** Takes no more jobs, and waits for those running to end. */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.sweepTimer);
    clearInterval(this.renewer);
    this.sender?.stop();
    await this.listener?.close();
    await Promise.allSettled([this.sweeping, this.claiming]);
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

  /**
   * A write on this process enqueued jobs of `tenants`: they are taken here now when there is room,
   * and the other nodes are told when this process takes none or has no room. Without tenants, a
   * sweep looks across tenants now (a fan-out on Citus: callers name their tenants).
   */
  wake(tenants?: Iterable<string>): void {
    if (tenants === undefined) {
      this.sweepIn(0);
      return;
    }
    if (this.started) this.wakeHere(tenants);
    if (!this.started || this.free() <= 0) this.sender?.add('jobs', tenants);
  }

  /**
   * A write on this process committed something the kinds that wake on `name` act on: run them
   * here soon, once for all the signals of their wake window, for the `tenants` signalled (all
   * when a signal names none). A process that takes no jobs tells the other nodes of events.
   */
  signal(name: string, tenants?: Iterable<string>): void {
    if (this.started) this.signalHere(name, tenants);
    else if (name === EVENTS_SIGNAL && tenants) this.sender?.add('events', tenants);
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

  private free(): number {
    return this.options.settings.concurrency - this.running.size;
  }

  private periodicKinds(): string[] {
    return [...this.kinds].filter(([, kind]) => kind.everyMs !== undefined).map(([name]) => name);
  }

  private wakeKinds(signal?: string): string[] {
    return [...this.kinds]
      .filter(([, kind]) => kind.wakeOn !== undefined && (signal === undefined || kind.wakeOn === signal))
      .map(([name]) => name);
  }

  private channelName(): Promise<string> {
    this.channel ??= sql<{ schema: string }>`SELECT current_schema() AS schema`
      .execute(this.options.db)
      .then(({ rows }) => channelOf(rows[0]!.schema));
    // A failed look is asked again next time.
    this.channel.catch(() => {
      this.channel = undefined;
    });
    return this.channel;
  }

  /** What another process said: tenants to take jobs of or relay events of, or that it swept. */
  private heard(payload: string): void {
    const wakeup = readWakeup(payload);
    if (!this.started || !wakeup || wakeup.w === this.worker) return;
    if (wakeup.j) this.wakeHere(wakeup.j);
    if (wakeup.e) this.signalHere(EVENTS_SIGNAL, wakeup.e);
    // Another node swept: this one sweeps a period after it, jittered so two nodes do not keep colliding.
    if (wakeup.s) this.sweepIn(this.options.settings.sweepMs * (1 + Math.random() / 2));
  }

  private wakeHere(tenants: Iterable<string>): void {
    for (const tenant of tenants) this.wanted.add(tenant);
    this.claimSoon();
  }

  private signalHere(name: string, tenants?: Iterable<string>): void {
    for (const kind of this.wakeKinds(name)) {
      const waiting = this.signalled.get(kind);
      this.signalled.set(kind, widen(waiting, tenants));
      if (waiting !== undefined) continue;
      const run = () => {
        const scope = this.signalled.get(kind);
        this.signalled.delete(kind);
        this.track(this.runLocally(kind, scope === 'all' || scope === undefined ? undefined : [...scope]));
      };
      const delay = this.kinds.get(kind)!.wakeAfterMs ?? 0;
      if (delay > 0) setTimeout(run, delay).unref();
      else run();
    }
  }

  private track(promise: Promise<unknown>): void {
    this.running.add(promise);
    promise.finally(() => {
      this.running.delete(promise);
      // A slot is free: tenants still waiting for one are taken now.
      if (this.wanted.size > 0) this.claimSoon();
    });
  }

  /** Takes the wanted tenants' due jobs, a statement pinned to each, while there is room. */
  private claimSoon(): void {
    if (!this.started) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = this.claimWanted().finally(() => {
      this.claiming = undefined;
      if (this.claimAgain) {
        this.claimAgain = false;
        this.claimSoon();
      }
    });
  }

  private async claimWanted(): Promise<void> {
    for (const tenant of [...this.wanted]) {
      const free = this.free();
      if (free <= 0 || !this.started) return;
      let jobs: JobRow[] = [];
      try {
        jobs = await this.claim(free, [tenant]);
      } catch (error) {
        // Its worker may be down: the sweep comes back to it.
        this.options.log.warn({ code: codeOf(error) }, 'job claim failed');
      }
      // Fewer than asked for: nothing else of the tenant is due now.
      if (jobs.length < free) this.wanted.delete(tenant);
      for (const job of jobs) this.track(this.execute(job));
    }
  }

  /** The next sweep in `ms`, in place of the one planned. */
  private sweepIn(ms: number): void {
    if (!this.started) return;
    clearTimeout(this.sweepTimer);
    this.sweepTimer = setTimeout(() => this.sweep(), ms).unref();
  }

  private sweep(): void {
    if (!this.started || this.sweeping) return;
    this.sweeping = this.sweepOnce()
      .catch((error: Error) => {
        this.options.log.warn({ code: codeOf(error) }, 'job sweep failed');
        return false;
      })
      .then((found) => {
        this.sweeping = undefined;
        this.sweepIn(found ? Math.min(BUSY_SWEEP_MS, this.options.settings.sweepMs) : this.options.settings.sweepMs);
      });
  }

  /** One look across tenants: their due jobs are taken, their waiting events relayed. Answers whether it found any. */
  private async sweepOnce(): Promise<boolean> {
    const { db, clock, log } = this.options;
    if (!this.periodicEnsured) {
      // The nil tenant's worker may be down at start-up: the next sweep tries again.
      await ensurePeriodicJobs(db, this.periodicKinds(), clock.now()).then(
        () => {
          this.periodicEnsured = true;
        },
        (error: Error) => log.warn({ code: codeOf(error) }, 'periodic jobs not made'),
      );
    }
    const due = await this.sweeper.due({ kinds: [...this.kinds.keys()], now: clock.now(), limit: SWEEP_TENANTS });
    const jobs = due.filter((tenant) => tenant.jobs).map((tenant) => tenant.tenantId);
    const events = due.filter((tenant) => tenant.events).map((tenant) => tenant.tenantId);
    if (jobs.length > 0) this.wakeHere(jobs);
    if (events.length > 0) this.signalHere(EVENTS_SIGNAL, events);
    // The others put their sweeps off, and take the jobs this process has no room for.
    await this.sender?.announceSweep(this.free() > 0 ? [] : jobs);
    return due.length > 0;
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
   * A kind run here and now, outside any row (it is safe to run anywhere at any time), for
   * `tenants` (all when none are named). One local run at a time; tenants named during a run make
   * it run once more after, for them, so nothing is missed.
   */
  private runLocally(name: string, tenants?: readonly string[]): Promise<number> {
    const current = this.local.get(name);
    if (current) {
      current.next = widen(current.next, tenants);
      return current.run;
    }
    const entry: { run: Promise<number>; next: Scope | undefined } = { run: Promise.resolve(0), next: widen(undefined, tenants) };
    entry.run = (async () => {
      let done = 0;
      try {
        while (entry.next !== undefined) {
          const scope = entry.next;
          entry.next = undefined;
          done += await this.perform(name, localJob(name, scope === 'all' ? undefined : [...scope]));
        }
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

  /** Writes how a run ended, retried while the database is unreachable (recording.ts). */
  private record(end: () => Promise<void>): Promise<void> {
    return recordOutcome(end, recordingWindow(this.options.settings.leaseMs));
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
        await this.record(() => buryJob(db, row, 'ATTEMPTS_EXHAUSTED', clock.now()));
        this.count(row.kind, 'buried');
        return 1;
      }
      let done: number;
      try {
        done = await this.perform(row.kind, claimed(row));
      } catch (error) {
        if (error instanceof JobDeferred) {
          await this.record(() => deferJob(db, row, error.until, clock.now()));
          this.count(row.kind, 'deferred');
          return 1;
        }
        const code = codeOf(error);
        log.warn({ kind: row.kind, job: row.id, attempt: row.attempts, code }, 'job failed');
        const now = clock.now();
        if (kind.everyMs) {
          const wait = Math.max(kind.everyMs, retryDelay(kind, row.attempts));
          await this.record(() => rescheduleJob(db, row, new Date(now.getTime() + wait), code, now));
        } else if (row.attempts >= kind.maxAttempts) {
          await this.record(() => buryJob(db, row, code, now));
          this.count(row.kind, 'buried');
          return 1;
        } else {
          await this.record(() => retryJob(db, row, new Date(now.getTime() + retryDelay(kind, row.attempts)), code, now));
        }
        this.count(row.kind, 'failed');
        return 1;
      }
      const now = clock.now();
      if (kind.everyMs) await this.record(() => rescheduleJob(db, row, new Date(now.getTime() + kind.everyMs!), null, now));
      else await this.record(() => completeJob(db, row, now));
      this.count(row.kind, 'succeeded');
      // Its end may have promoted the next job of its key: due now, and no write woke anyone for it.
      if (row.queue_key && this.started) this.wakeHere([row.tenant_id]);
      return done + 1;
    } catch (error) {
      // The database failed us past the retries: the lease runs out, and the job runs again.
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
