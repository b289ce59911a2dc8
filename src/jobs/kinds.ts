/**
 * A kind of background work, declared by the area or mechanism that owns it (`Area.jobs`), like
 * its error codes. `Env` is what a run is given to work with (the app's services).
 */
export interface JobKind<Env> {
  /** What a job of the kind does, for the docs and the administrators' list. */
  description: string;
  /**
   * Does the work. Throwing retries it later (or buries it, out of attempts); returning ends it.
   * Work done may be counted in the number returned (a drain goes on while work is done).
   */
  run(job: ClaimedJob, env: Env): Promise<unknown>;
  /** Attempts before the job is DEAD (1: never retried). */
  maxAttempts: number;
  /** Retries wait `baseMs` doubling each time up to `maxMs`, less a random part of up to half (jitter). */
  backoff?: { baseMs: number; maxMs: number };
  /**
   * Periodic work: one job of the kind runs every `everyMs` on one node of the cluster, and is
   * never DEAD (a failing run waits for its backoff, then its next period). It must be safe to run
   * on two nodes at once, as `wakeOn` may run it anywhere.
   */
  everyMs?: number;
  /**
   * A signal on which a node runs the kind locally, soon: `events` (EVENTS_SIGNAL: a write emitted
   * events; the run gets the writes' tenants in `payload.tenants`, and the sweep signals it for
   * tenants with events waiting), or a periodic kind's own.
   */
  wakeOn?: string;
  /** How long a signalled run waits for more signals, so busy writes share one run (0: at once). */
  wakeAfterMs?: number;
  /**
   * Event subtypes (`ENCOUNTER_FINALIZED`) a job of the kind follows: a write emitting one enqueues
   * the job in the same transaction, its payload the event's `{subtype, recordId, patientId, data}`.
   * So one area reacts to another's change without either calling the other, and a rollback
   * enqueues nothing. A kind follows a subtype after its own permission checks: the job runs as the system.
   */
  after?: readonly string[];
}

export interface ClaimedJob {
  tenantId: string;
  id: string;
  instanceId: string | null;
  kind: string;
  payload: Record<string, unknown>;
  /** 1 on the first run. */
  attempt: number;
  key: string | null;
}

/**
 * Thrown by a run that must wait for something outside it (a backup's hold on blob removals): the
 * job runs again at `until`, the attempt not counted, so a long wait never makes it DEAD.
 */
export class JobDeferred extends Error {
  constructor(readonly until: Date) {
    super('JOB_DEFERRED');
  }
}

/** The signal of events committed to the outbox (a write's, or found waiting by the sweep), with their tenants. */
export const EVENTS_SIGNAL = 'events';

/** Default backoff: 10 s doubling to an hour. */
const DEFAULT_BACKOFF = { baseMs: 10_000, maxMs: 60 * 60_000 };

/** How long after a failed `attempt` the next one runs: exponential, capped, with jitter so retries of many jobs spread out. */
export function retryDelay(kind: Pick<JobKind<unknown>, 'backoff'>, attempt: number, random = Math.random()): number {
  const { baseMs, maxMs } = kind.backoff ?? DEFAULT_BACKOFF;
  const full = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(full * (1 - random / 2));
}
